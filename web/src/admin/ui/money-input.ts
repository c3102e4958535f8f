/** Money typed into the panel's inputs (reais, pt-BR) and back: the API speaks integer cents. */

/**
 * `39,90`, `39.90`, `1.234,50`, `1.234`, `R$ 5` -> cents; null when it is not money (more than two decimals
 * included). A leading minus only with `allowNegative`.
 */
export function parseMoney(text: string, { allowNegative = false } = {}): number | null {
  let s = text.replace(/R\$|\s/g, '');
  const negative = s.startsWith('-');
  if (negative) s = s.slice(1);
  // A comma is the decimal mark and dots group thousands; without a comma, dots group thousands only in
  // the `1.234.567` shape, else the dot is the decimal mark.
  if (s.includes(',')) s = s.replace(/\.(?=\d{3}(\D|$))/g, '').replace(',', '.');
  else if (/^\d{1,3}(\.\d{3})+$/.test(s)) s = s.replace(/\./g, '');
  if (!/^\d+(\.\d{1,2})?$/.test(s) || (negative && !allowNegative)) return null;
  const cents = Math.round(Number(s) * 100);
  return negative ? -cents : cents;
}

/** Cents -> `39,90`, the value a money input starts with. */
export const centsToInput = (cents: number) => (cents / 100).toFixed(2).replace('.', ',');
