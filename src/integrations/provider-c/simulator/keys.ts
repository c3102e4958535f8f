/**
 * The simulator's RSA signing keys: one current key (its `kid` in the header of every webhook JWT) and the
 * retired ones still published, all served as a JWKS (`GET /.well-known/jwks.json`). `rotate` makes a new
 * current key; the old one stays published (`keepOld`, the usual overlap) or is dropped at once.
 */
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';

export interface SimKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  createdAt: string;
}

/** At most this many keys are published (the current one and the newest retired ones). */
const MAX_PUBLISHED = 4;

function newKey(now: Date): SimKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid: `pc-${now.toISOString().slice(0, 10)}-${randomBytes(4).toString('hex')}`, privateKey, publicKey, createdAt: now.toISOString() };
}

export function keyRing(now: () => Date) {
  let published: SimKey[] = [newKey(now())];
  let stranger: SimKey | null = null;
  let rotations = 0;
  return {
    /** The key webhooks are signed with. */
    get current(): SimKey {
      return published[0];
    },
    get rotations() {
      return rotations;
    },
    /** The published kids, current first. */
    kids: (): string[] => published.map((k) => k.kid),
    /** A key that was never published (the simulator's forged webhooks). */
    stranger(): SimKey {
      return (stranger ??= newKey(now()));
    },
    /** A new current key; the previous ones stay published when `keepOld` (default), else are dropped. */
    rotate(keepOld = true): { kid: string; kids: string[]; dropped: string[] } {
      const next = newKey(now());
      const before = published;
      published = keepOld ? [next, ...before].slice(0, MAX_PUBLISHED) : [next];
      rotations++;
      const dropped = before.filter((k) => !published.includes(k)).map((k) => k.kid);
      return { kid: next.kid, kids: published.map((k) => k.kid), dropped };
    },
    /** The JWKS document (public parts only). */
    jwks() {
      return { keys: published.map((k) => ({ ...(k.publicKey.export({ format: 'jwk' }) as object), kid: k.kid, use: 'sig', alg: 'RS256' })) };
    },
  };
}
export type KeyRing = ReturnType<typeof keyRing>;
