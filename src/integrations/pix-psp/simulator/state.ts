/**
 * What the pix_psp simulator remembers: the charges (`cob`) as the API Pix shows them, the Pix received
 * for them, and how it answers errors (RFC 7807 problems, as the API Pix does).
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { Clock } from '../../../platform/clock.js';
import { centsToAmountText } from '../../money.js';
import { tokenStore } from '../../simulator/oauth.js';
import { send } from '../../simulator/server.js';
import type { CobStatus } from '../wire.js';

export const PIX_PSP_SIM_CLIENT_ID = 'sim-pix-psp-client';
export const PIX_PSP_SIM_CLIENT_SECRET = 'sim-pix-psp-secret';
/** Token lifetime unless told otherwise (1 hour, as PSPs commonly grant). */
export const PIX_PSP_SIM_TOKEN_TTL_SECONDS = 3_600;
/** ISPB the simulated PSPs use in endToEndIds and rtrIds. */
export const PIX_PSP_SIM_ISPB = '99999999';
/** The scopes of the API Pix a client may ask for. */
export const PIX_PSP_SIM_SCOPES = ['cob.write', 'cob.read', 'pix.write', 'pix.read', 'webhook.write', 'webhook.read'] as const;

/** The PSP's OAuth tokens; asking for no scope grants them all. */
export const pixPspTokens = (clock: Clock, ttlSeconds: number) =>
  tokenStore(clock, ttlSeconds, { prefix: 'sim-pix-', tokenType: 'Bearer', defaultScope: PIX_PSP_SIM_SCOPES.join(' ') });

export interface SimPix {
  endToEndId: string;
  txid: string;
  amountCents: number;
  key: string;
  paidAt: Date;
  payerMessage: string | null;
}

export interface SimCharge {
  txid: string;
  revision: number;
  status: CobStatus;
  createdAt: Date;
  expiresInSeconds: number;
  amountCents: number;
  key: string;
  description: string | null;
  location: string;
  brCode: string;
  /** What it was created with, to tell a repeated PUT from a conflicting one. */
  request: string;
  pix: SimPix[];
}

/** A Pix item as the API Pix writes it (in a charge, in `GET /v2/pix/{e2eid}`, in the webhook). */
export function viewPix(p: SimPix) {
  return {
    endToEndId: p.endToEndId,
    txid: p.txid,
    valor: centsToAmountText(p.amountCents),
    chave: p.key,
    horario: p.paidAt.toISOString(),
    ...(p.payerMessage !== null ? { infoPagador: p.payerMessage } : {}),
  };
}

export type SimPixView = ReturnType<typeof viewPix>;

/** The charge as `PUT` / `GET /v2/cob/{txid}` answer it. */
export function viewCharge(c: SimCharge) {
  return {
    calendario: { criacao: c.createdAt.toISOString(), expiracao: c.expiresInSeconds },
    txid: c.txid,
    revisao: c.revision,
    location: c.location,
    status: c.status,
    valor: { original: centsToAmountText(c.amountCents) },
    chave: c.key,
    ...(c.description !== null ? { solicitacaoPagador: c.description } : {}),
    pixCopiaECola: c.brCode,
    ...(c.pix.length ? { pix: c.pix.map(viewPix) } : {}),
  };
}
export type SimChargeView = ReturnType<typeof viewCharge>;

/** `E` / `D` + ISPB + yyyyMMddHHmm + 11 letters and digits: the SPI's ids of a Pix and of a return. */
export function spiId(kind: 'E' | 'D', at: Date): string {
  const stamp = at.toISOString().replace(/\D/g, '').slice(0, 12);
  const serial = randomBytes(8).toString('hex').slice(0, 11);
  return `${kind}${PIX_PSP_SIM_ISPB}${stamp}${serial}`;
}

/** A refusal of the simulated PSP, answered as an RFC 7807 problem of the API Pix. */
export class PixSimError extends Error {
  constructor(
    readonly status: number,
    /** Last segment of the problem `type` (`CobNaoEncontrado`). */
    readonly type: string,
    readonly title: string,
    readonly detail: string,
    readonly violations?: { razao: string; propriedade: string }[],
  ) {
    super(detail);
  }
}

/** Answers a PixSimError as the API Pix would; anything else is the server's 500. */
export function replyProblem(reply: FastifyReply, err: unknown) {
  if (!(err instanceof PixSimError)) throw err;
  const { status, type, title, detail, violations } = err;
  return send(reply.type('application/problem+json'), status, {
    type: `https://pix.bcb.gov.br/api/v2/error/${type}`,
    title,
    status,
    detail,
    ...(violations ? { violacoes: violations } : {}),
  });
}

/** A 400 of an invalid request body, naming the field. */
export const invalidField = (type: string, propriedade: string, razao: string) =>
  new PixSimError(400, type, 'Requisição inválida.', `${propriedade}: ${razao}`, [{ razao, propriedade }]);

/** Answers what `run` returns (status 200 unless it set another), or its PixSimError as a problem. */
export async function answer(reply: FastifyReply, run: () => unknown) {
  try {
    const body = await run();
    return send(reply, reply.statusCode, body);
  } catch (err) {
    return replyProblem(reply, err);
  }
}
