/** The tenant's brand colour on the page, with a text colour that keeps WCAG contrast. */

export const FALLBACK_BRAND = '#b23a1d';

/** `#rgb` / `#rrggbb` -> [r, g, b] (0-255), or null for anything else. */
export function parseHex(color: string | null | undefined): [number, number, number] | null {
  const m = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec((color ?? '').trim());
  if (!m) return null;
  const hex = m[1].length === 3 ? [...m[1]].map((c) => c + c).join('') : m[1];
  return [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
}

/** WCAG relative luminance. */
export function luminance([r, g, b]: [number, number, number]): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

export function contrast(a: number, b: number): number {
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}

/**
 * The brand colour (the fallback when unset or unreadable) and the text to write on it: white or near
 * black, whichever contrasts more (at least 4.5:1 for any colour).
 */
export function brandColors(primary: string | null | undefined): { brand: string; onBrand: string } {
  const rgb = parseHex(primary) ?? parseHex(FALLBACK_BRAND)!;
  const brand = `#${rgb.map((c) => c.toString(16).padStart(2, '0')).join('')}`;
  const l = luminance(rgb);
  const dark = luminance([17, 17, 17]);
  return { brand, onBrand: contrast(l, 1) >= contrast(l, dark) ? '#ffffff' : '#111111' };
}
