/** The EFD files' text rules: the SPED ones (platform/sped-text.ts), amounts allocated over lines, blocks and the 9 block. */
import { line } from '../../platform/sped-text.js';

export { centsOf, date as ddmmaaaa, digits, encode, isoOf, line, money, rate, text } from '../../platform/sped-text.js';

/**
 * `total` split over `weights` in proportion, integers adding up exactly to `total` (largest remainder;
 * equal weights when they are all zero).
 */
export function allocate(total: number, weights: number[]): number[] {
  if (weights.length === 0) return [];
  const sum = weights.reduce((s, w) => s + w, 0);
  const ws = sum > 0 ? weights : weights.map(() => 1);
  const wsum = sum > 0 ? sum : weights.length;
  const raw = ws.map((w) => (total * w) / wsum);
  const out = raw.map((r) => Math.floor(r));
  let left = total - out.reduce((s, v) => s + v, 0);
  const order = raw.map((r, i) => ({ i, frac: r - Math.floor(r) })).sort((a, b) => b.frac - a.frac || a.i - b.i);
  for (let k = 0; left > 0; k = (k + 1) % order.length, left--) out[order[k]!.i]! += 1;
  return out;
}

/**
 * Closes a file: the 9 block (9001, one 9900 per register type in order of first appearance, 9900 itself,
 * 9990, 9999) after `lines`, which already hold every other block.
 */
export function closeFile(lines: string[]): string[] {
  const counts = new Map<string, number>();
  for (const l of lines) {
    const reg = l.split('|')[1]!;
    counts.set(reg, (counts.get(reg) ?? 0) + 1);
  }
  const nine = ['9001', '9900', '9990', '9999'];
  const types = [...counts.keys(), ...nine];
  const blk9 = [line(['9001', '0'])];
  for (const reg of types) {
    const n = reg === '9900' ? types.length : nine.includes(reg) ? 1 : counts.get(reg)!;
    blk9.push(line(['9900', reg, n]));
  }
  blk9.push(line(['9990', blk9.length + 2]));
  const all = [...lines, ...blk9];
  all.push(line(['9999', all.length + 1]));
  return all;
}

/** A block's lines with its closing register (`X990` counting its opening and closing). */
export const block = (reg990: string, body: string[]) => [...body, line([reg990, body.length + 1])];
