/** Page titles (menu labels): apart from strings.ts so the menu does not pull every text into the first chunk. */
export const titles = { dashboard: 'Painel do dia', menu: 'Cardápio', tables: 'Mesas e QR codes', reservations: 'Reservas' };
