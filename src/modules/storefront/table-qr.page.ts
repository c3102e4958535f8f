/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export interface TableQrCard {
  number: number;
  url: string;
  /** The QR code as an SVG document (from the qrcode package: no user text inside). */
  svg: string;
}

const STYLE = `
  @page { size: A4; margin: 12mm; }
  * { box-sizing: border-box; }
  body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; margin: 0; color: #111; }
  header { margin: 0 0 8mm; }
  header h1 { font-size: 16pt; margin: 0; }
  header p { font-size: 10pt; margin: 2mm 0 0; color: #555; }
  .grid { display: grid; grid-template-columns: 1fr 1fr; gap: 8mm; }
  .card { border: 1px dashed #999; border-radius: 4mm; padding: 6mm; text-align: center; break-inside: avoid; page-break-inside: avoid; }
  .card .tenant { font-size: 12pt; font-weight: 600; margin: 0; }
  .card .table { font-size: 22pt; font-weight: 700; margin: 2mm 0 3mm; }
  .card .qr svg { width: 60mm; height: 60mm; }
  .card .hint { font-size: 10pt; margin: 2mm 0 1mm; }
  .card .url { font-size: 7pt; color: #555; word-break: break-all; margin: 0; }
  .empty { font-size: 12pt; }
  @media print { header p.screen { display: none; } }
`;

/** The printable A4 page of table QR codes, two cards a row, in pt-BR; every tenant text escaped. */
export function tableQrPage({ tenantName, pdvName, cards }: { tenantName: string; pdvName: string; cards: TableQrCard[] }): string {
  const name = escapeHtml(tenantName);
  const body = cards.length
    ? `<main class="grid">${cards
        .map(
          (c) => `
  <section class="card" data-table="${c.number}">
    <p class="tenant">${name}</p>
    <p class="table">Mesa ${c.number}</p>
    <div class="qr">${c.svg}</div>
    <p class="hint">Aponte a câmera para ver o cardápio e fazer o pedido</p>
    <p class="url">${escapeHtml(c.url)}</p>
  </section>`,
        )
        .join('')}
</main>`
    : '<p class="empty">Nenhuma mesa cadastrada. Cadastre as mesas para imprimir os QR codes.</p>';
  return `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>QR codes das mesas · ${name}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
  <h1>QR codes das mesas · ${name}</h1>
  <p>Ponto de venda: ${escapeHtml(pdvName)} · ${cards.length} ${cards.length === 1 ? 'mesa' : 'mesas'}</p>
  <p class="screen">Use Ctrl+P (ou Cmd+P) para imprimir em A4.</p>
</header>
${body}
</body>
</html>
`;
}
