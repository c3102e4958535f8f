/** Money on the pages: the API speaks integer cents; people read BRL (`R$ 12,50`). */
const brl = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });

/** `1250` -> `R$ 12,50` (the space Intl puts after `R$` is a no-break space). */
export function formatMoney(cents: number): string {
  return brl.format(cents / 100);
}

/** A price adjustment with its sign: `+ R$ 2,00`, `- R$ 1,00`; empty for zero. */
export function formatAdjustment(cents: number): string {
  if (cents === 0) return '';
  return `${cents > 0 ? '+' : '-'} ${formatMoney(Math.abs(cents))}`;
}
