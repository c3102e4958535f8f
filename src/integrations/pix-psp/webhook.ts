/**
 * The PSP's webhook (Bacen API Pix, "Webhook"): the receiver registers a URL (`PUT /v2/webhook/{chave}`)
 * and the PSP POSTs to that URL with `/pix` appended, body `{ pix: [{ endToEndId, txid, valor, horario,
 * infoPagador? }] }`: one or more Pix received on the key. A Pix without `txid` was sent to the key
 * without a charge. The same Pix may be notified more than once: handle it idempotently by endToEndId.
 * Check the signature (`signature.ts`) on the raw body before reading it.
 */
import { readPixItem, type PixPayment } from './wire.js';

/** The URL registered with the PSP, on the service. */
export const PIX_PSP_WEBHOOK_REGISTERED_PATH = '/api/pix-psp/webhook';
/** Route of the service that receives the webhooks: the registered URL with the `/pix` the PSP appends. */
export const PIX_PSP_WEBHOOK_PATH = `${PIX_PSP_WEBHOOK_REGISTERED_PATH}/pix`;

/** What the PSP reports: the Pix received. */
export interface PixPspWebhookEvent {
  payments: PixPayment[];
}

/** The webhook body: `{ pix: [...] }`, or null when it is anything else (answer 400). */
export function parsePixPspWebhook(body: unknown): PixPspWebhookEvent | null {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const list = (body as Record<string, unknown>).pix;
  if (!Array.isArray(list) || list.length === 0) return null;
  const payments = list.map(readPixItem);
  return payments.every((p) => p !== null) ? { payments: payments as PixPayment[] } : null;
}
