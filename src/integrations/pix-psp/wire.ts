/**
 * The Bacen API Pix's shapes ("cobranças imediatas", Pix received, devoluções) read into the service's
 * terms (cents, `Date`s, our status words), shared by the client and the webhook reader. Answers are read
 * defensively: a shape that is not what the API specifies is `null` here and an `unavailable` error above.
 */
import { amountTextToCents } from '../money.js';

/** txid of a charge (API Pix, `cob`): 26 to 35 letters and digits, chosen by the receiver. */
export const PIX_TXID = /^[a-zA-Z0-9]{26,35}$/;
/** endToEndId of a Pix: `E`, the payer PSP's ISPB, a time stamp and a serial; 32 characters. */
export const PIX_END_TO_END_ID = /^[a-zA-Z0-9]{32}$/;
/** id of a devolução, chosen by the receiver: 1 to 35 letters and digits. */
export const PIX_REFUND_ID = /^[a-zA-Z0-9]{1,35}$/;

/** `status` of a charge as the API Pix writes it. */
export type CobStatus = 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR' | 'REMOVIDA_PELO_PSP';

/** Our word for it: waiting for the payer, paid, or removed (by us or by the PSP). */
export type PixChargeStatus = 'active' | 'paid' | 'removed';

export function chargeStatusOf(status: unknown): PixChargeStatus | null {
  switch (status) {
    case 'ATIVA':
      return 'active';
    case 'CONCLUIDA':
      return 'paid';
    case 'REMOVIDA_PELO_USUARIO_RECEBEDOR':
    case 'REMOVIDA_PELO_PSP':
      return 'removed';
    default:
      return null;
  }
}

/** A Pix received: in `pix` of a paid charge and in the webhook body. */
export interface PixPayment {
  endToEndId: string;
  /** The charge it paid; null for a Pix sent to the key without a charge. */
  txid: string | null;
  amountCents: number;
  paidAt: Date;
  /** `infoPagador`: the payer's message, if any. */
  payerMessage: string | null;
}

const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function time(v: unknown): Date | null {
  const d = typeof v === 'string' ? new Date(v) : null;
  return d && !Number.isNaN(d.getTime()) ? d : null;
}

/** One item of a `pix` array (`{ endToEndId, txid, valor, horario, infoPagador? }`), or null. */
export function readPixItem(v: unknown): PixPayment | null {
  if (!v || typeof v !== 'object') return null;
  const p = v as Record<string, unknown>;
  const endToEndId = text(p.endToEndId);
  const amountCents = amountTextToCents(p.valor);
  const paidAt = time(p.horario);
  if (!endToEndId || amountCents === null || !paidAt) return null;
  return { endToEndId, txid: text(p.txid), amountCents, paidAt, payerMessage: text(p.infoPagador) };
}

/** A charge in the service's terms. */
export interface PixCharge {
  txid: string;
  status: PixChargeStatus;
  /** `revisao`: 0 when created, +1 at each change (removal). */
  revision: number;
  amountCents: number;
  /** The receiver's PIX key, normalised. */
  key: string;
  /** `solicitacaoPagador`: the text shown to the payer. */
  description: string | null;
  createdAt: Date;
  expiresInSeconds: number;
  /** `criacao` + `expiracao`: no payment is accepted after it. */
  expiresAt: Date;
  /** `pixCopiaECola`: the dynamic BR Code to show as text and as QR code. */
  brCode: string;
  /** `location` of the payload the BR Code points to, without scheme. */
  location: string | null;
  /** The Pix that paid it (one, for a charge of fixed value); empty until paid. */
  payments: PixPayment[];
}

/** A `cob` body read into a charge, or null when it is not one. */
export function readCob(v: unknown): PixCharge | null {
  if (!v || typeof v !== 'object') return null;
  const b = v as Record<string, unknown>;
  const calendario = (b.calendario ?? {}) as Record<string, unknown>;
  const valor = (b.valor ?? {}) as Record<string, unknown>;
  const txid = text(b.txid);
  const status = chargeStatusOf(b.status);
  const amountCents = amountTextToCents(valor.original);
  const createdAt = time(calendario.criacao);
  const expiresInSeconds = Number(calendario.expiracao ?? 86_400);
  const key = text(b.chave);
  const brCode = text(b.pixCopiaECola);
  const items = Array.isArray(b.pix) ? b.pix.map(readPixItem) : [];
  if (!txid || !status || amountCents === null || !createdAt || !Number.isInteger(expiresInSeconds) || !key || !brCode) return null;
  if (items.some((p) => p === null)) return null;
  return {
    txid,
    status,
    revision: Number.isInteger(b.revisao) ? (b.revisao as number) : 0,
    amountCents,
    key,
    description: text(b.solicitacaoPagador),
    createdAt,
    expiresInSeconds,
    expiresAt: new Date(createdAt.getTime() + expiresInSeconds * 1000),
    brCode,
    location: text(b.location),
    payments: items as PixPayment[],
  };
}

/** A devolução: the money of a received Pix given back, whole or in part. */
export interface PixRefund {
  /** Our id of the devolução (the `id` of the path). */
  refundId: string;
  /** The endToEndId of the Pix given back (named as the shared `Refund` names the payment). */
  paymentId: string;
  amountCents: number;
  /** `DEVOLVIDO` approved, `EM_PROCESSAMENTO` processing (read it again later), `NAO_REALIZADO` failed. */
  status: 'approved' | 'processing' | 'failed';
  /** `rtrId`: the return's id in the SPI. */
  rtrId: string;
}

const REFUND_STATUS = { DEVOLVIDO: 'approved', EM_PROCESSAMENTO: 'processing', NAO_REALIZADO: 'failed' } as const;

/** A devolução body (`{ id, rtrId, valor, status }`) of the Pix `endToEndId`, or null when it is not one. */
export function readDevolucao(v: unknown, endToEndId: string): PixRefund | null {
  if (!v || typeof v !== 'object') return null;
  const b = v as Record<string, unknown>;
  const refundId = text(b.id);
  const rtrId = text(b.rtrId);
  const amountCents = amountTextToCents(b.valor);
  const status = typeof b.status === 'string' ? REFUND_STATUS[b.status as keyof typeof REFUND_STATUS] : undefined;
  if (!refundId || !rtrId || amountCents === null || !status) return null;
  return { refundId, paymentId: endToEndId, amountCents, status, rtrId };
}
