import PDFDocument from 'pdfkit';
import QRCode from 'qrcode';
import type { LabelReason, StockUnit } from '../../db/schema/inventory.js';
import { localDate, localTime } from '../../platform/time.js';

/**
 * The printable label of a LabelToken: one page of 4 x 2 in (101.6 x 50.8 mm, 288 x 144 pt), the common
 * roll of thermal label printers (Zebra, Elgin, Argox; a 100 x 50 mm roll fits). The QR code of the scan
 * URL on the left, drawn as vector squares (sharp at any printer resolution, no image scaling), with the
 * standard 4-module quiet zone left white; the item's name, SKU, quantity and unit, the reason, the
 * creation date and time in the tenant's time zone, the item's expiration date and the PDV on the right,
 * in Portuguese (the staff reading it). Standard Helvetica: WinAnsi covers Portuguese accents.
 */

/** The page size in points (1/72 in). */
export const LABEL_PAGE = { width: 288, height: 144 } as const;
/** Where the QR code's modules (quiet zone excluded) are drawn: its left, top and side, in points. */
export const LABEL_QR_BOX = { x: 16, y: 16, size: 112 } as const;
const TEXT = { x: 144, width: 136 } as const;

export interface LabelFace {
  itemName: string;
  sku: string;
  /** Thousandths of `unit`. */
  quantityMilli: number;
  unit: StockUnit;
  reason: LabelReason;
  createdAt: Date;
  timeZone: string;
  /** The item's expiration date (YYYY-MM-DD), or null. */
  expirationDate: string | null;
  pdvName: string | null;
  scanUrl: string;
}

const REASON_TEXT: Record<LabelReason, string> = { loss: 'Perda', theft: 'Roubo', expiration: 'Vencimento', adjustment: 'Ajuste' };
const quantityFormat = new Intl.NumberFormat('pt-BR', { maximumFractionDigits: 3, useGrouping: false });

/** `1500` of kg as `1,5 kg`. */
export function labelQuantity(quantityMilli: number, unit: StockUnit): string {
  return `${quantityFormat.format(quantityMilli / 1000)} ${unit}`;
}

/** `2026-05-20` as `20/05/2026`. */
const brDate = (date: string) => date.split('-').reverse().join('/');

/** The lines of text on the label, in order (also what the tests look for). */
export function labelLines(face: LabelFace): string[] {
  const created = `${brDate(localDate(face.createdAt, face.timeZone))} ${localTime(face.createdAt, face.timeZone)}`;
  return [
    face.itemName,
    `SKU ${face.sku}`,
    labelQuantity(face.quantityMilli, face.unit),
    `Motivo: ${REASON_TEXT[face.reason]}`,
    `Criada: ${created}`,
    ...(face.expirationDate ? [`Validade: ${brDate(face.expirationDate)}`] : []),
    ...(face.pdvName ? [`PDV: ${face.pdvName}`] : []),
  ];
}

/** The dark modules of the QR code of `text` (error correction M), as a square matrix, row by row. */
export function qrModules(text: string): boolean[][] {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  return Array.from({ length: modules.size }, (_, row) => Array.from({ length: modules.size }, (_, col) => modules.get(row, col) === 1));
}

function drawQr(doc: PDFKit.PDFDocument, text: string) {
  const matrix = qrModules(text);
  const module = LABEL_QR_BOX.size / matrix.length;
  // One rectangle per run of dark modules in a row: a few hundred instead of a thousand.
  matrix.forEach((row, r) => {
    for (let c = 0; c < row.length; c++) {
      if (!row[c]) continue;
      let end = c;
      while (end + 1 < row.length && row[end + 1]) end++;
      doc.rect(LABEL_QR_BOX.x + c * module, LABEL_QR_BOX.y + r * module, (end - c + 1) * module, module);
      c = end;
    }
  });
  doc.fillColor('black').fill();
}

/** The label as a PDF file. */
export function renderLabelPdf(face: LabelFace): Promise<Buffer> {
  const doc = new PDFDocument({
    size: [LABEL_PAGE.width, LABEL_PAGE.height],
    margin: 0,
    info: { Title: `Etiqueta ${face.itemName}`, Creator: 'restaurant-ops', CreationDate: face.createdAt },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  drawQr(doc, face.scanUrl);
  const [name, sku, quantity, ...rest] = labelLines(face);
  doc.fillColor('black');
  doc.font('Helvetica-Bold').fontSize(11).text(name!, TEXT.x, 12, { width: TEXT.width, height: 27, ellipsis: true, lineGap: 0 });
  doc.font('Helvetica').fontSize(8).text(sku!, TEXT.x, 41, { width: TEXT.width, height: 10, ellipsis: true, lineBreak: false });
  doc.font('Helvetica-Bold').fontSize(16).text(quantity!, TEXT.x, 54, { width: TEXT.width, height: 19, ellipsis: true, lineBreak: false });
  rest.forEach((line, i) => {
    doc.font('Helvetica').fontSize(8).text(line, TEXT.x, 78 + i * 11, { width: TEXT.width, height: 10, ellipsis: true, lineBreak: false });
  });
  doc.end();
  return done;
}
