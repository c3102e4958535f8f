import { randomBytes } from 'node:crypto';

const processRandom = randomBytes(5);
let counter = randomBytes(3).readUIntBE(0, 3);

/**
 * 24 lowercase hex characters, time-ordered like a MongoDB ObjectId:
 * 4 bytes of Unix seconds, 5 random bytes per process, 3 bytes of a counter.
 */
export function newId(now: number = Date.now()): string {
  const buf = Buffer.alloc(12);
  buf.writeUInt32BE(Math.floor(now / 1000) >>> 0, 0);
  processRandom.copy(buf, 4);
  counter = (counter + 1) % 0xffffff;
  buf.writeUIntBE(counter, 9, 3);
  return buf.toString('hex');
}

/** The one definition of an id's shape: schemas (`platform/schemas.ts` `Id`) and `isId` both use it. */
export const ID_PATTERN = '^[0-9a-f]{24}$';
const ID = new RegExp(ID_PATTERN);

export function isId(value: unknown): value is string {
  return typeof value === 'string' && ID.test(value);
}
