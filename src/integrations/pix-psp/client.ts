/**
 * pix_psp: a payment service provider (PSP) speaking the Bacen API Pix for dynamic PIX charges
 * ("cobranças imediatas"): OAuth 2.0 client credentials (HTTP Basic), `PUT /v2/cob/{txid}` to create a
 * charge whose `pixCopiaECola` the payer scans, `GET` to read it, `PATCH` to remove it, payments confirmed
 * by webhook (`webhook.ts`), and devoluções (refunds) of a received Pix by its endToEndId.
 *
 * mTLS: real PSPs also require a client certificate on every call. In production it is configured through
 * the HTTPS agent of the `fetch` given to the client (an undici `Agent` with `connect: { cert, key }` as
 * its dispatcher); the simulator does not check certificates, so that part is not exercised by the tests.
 */
import { systemClock, type Clock } from '../../platform/clock.js';
import { parsePixKey } from '../../platform/pix/pix-key.js';
import { badResponse, errorForStatus, isOk, silentLogger, type FetchLike, type ProviderLogger, type ProviderResponse } from '../http.js';
import { isRefused } from '../errors.js';
import { centsToAmountText } from '../money.js';
import { bearerApi, type BearerCall } from '../oauth.js';
import { PixPspError } from './errors.js';
import { PIX_END_TO_END_ID, PIX_REFUND_ID, PIX_TXID, readCob, readDevolucao, type PixCharge, type PixRefund } from './wire.js';

export type { PixCharge, PixChargeStatus, PixPayment, PixRefund } from './wire.js';

/** Request timeout unless configured. */
export const PIX_PSP_TIMEOUT_MS = 30_000;
/** Scopes the client asks for (API Pix): charges, received Pix and their devoluções, the webhook. */
export const PIX_PSP_SCOPES = 'cob.write cob.read pix.write pix.read webhook.write';
/** Longest `solicitacaoPagador`. */
export const PIX_DESCRIPTION_MAX = 140;

export interface CreatePixChargeInput {
  /** 26 to 35 letters and digits, unique per charge: the same txid and input again return the same charge. */
  txid: string;
  /** Integer cents, at least 1. */
  amountCents: number;
  /** The receiver's PIX key (any form `parsePixKey` accepts). */
  key: string;
  /** Shown to the payer, at most 140 characters. */
  description?: string;
  /** How long the payer may pay, from creation (`calendario.expiracao`). */
  expiresInSeconds: number;
}

export interface PixRefundInput {
  /** The Pix to give back (a `payments[].endToEndId` of a paid charge). */
  endToEndId: string;
  /** Our id of this devolução, 1 to 35 letters and digits: the same id returns the same devolução, never a second one. */
  refundId: string;
  /** Integer cents, at least 1, at most what is left of the Pix. */
  amountCents: number;
}

export interface PixPspClient {
  /**
   * Creates the charge (`PUT /v2/cob/{txid}`). Idempotent: the same txid with the same input returns the
   * charge as it is now. Refused: the txid already names a charge with other data (409, `CobOperacaoInvalida`),
   * an input the PSP does not accept (400), and before any request an invalid txid, amount, key or expiry (`invalid_request`).
   */
  createCharge(input: CreatePixChargeInput): Promise<PixCharge>;
  /** Reads the charge; `payments` holds the Pix once paid. Refused: unknown txid (404, `CobNaoEncontrado`). */
  getCharge(txid: string): Promise<PixCharge>;
  /**
   * Removes an active charge (`PATCH`, `REMOVIDA_PELO_USUARIO_RECEBEDOR`); a removed one is returned as it is.
   * Refused when it was paid meanwhile (400, `CobOperacaoInvalida`): read it for the payment. Unknown: 404.
   */
  cancelCharge(txid: string): Promise<PixCharge>;
  /**
   * Gives back (part of) a received Pix (`PUT /v2/pix/{endToEndId}/devolucao/{refundId}`). The same `refundId`
   * returns the same devolução. Refused: more than what is left (400), unknown Pix (404), the refundId used
   * for another amount (409).
   */
  refund(input: PixRefundInput): Promise<PixRefund>;
}

export interface HttpPixPspClientOptions {
  /** The PSP's API Pix base URL (its `/v2/...` and `/oauth/token` are under it). */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  timeoutMs?: number;
  /** In production, a fetch whose HTTPS agent presents the client certificate (mTLS, see above). */
  fetch?: FetchLike;
  clock?: Clock;
  log?: ProviderLogger;
}

export class HttpPixPspClient implements PixPspClient {
  readonly baseUrl: string;
  private readonly authed: BearerCall;
  private readonly log: ProviderLogger;

  constructor(opts: HttpPixPspClientOptions) {
    this.baseUrl = opts.baseUrl;
    this.log = opts.log ?? silentLogger;
    this.authed = bearerApi({
      errors: PixPspError,
      baseUrl: this.baseUrl,
      clientId: opts.clientId,
      clientSecret: opts.clientSecret,
      clientAuth: 'basic',
      scope: PIX_PSP_SCOPES,
      fetch: opts.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      clock: opts.clock ?? systemClock,
      timeoutMs: opts.timeoutMs ?? PIX_PSP_TIMEOUT_MS,
      log: this.log,
    });
  }

  async createCharge(input: CreatePixChargeInput): Promise<PixCharge> {
    const { txid, amountCents, description, expiresInSeconds } = input;
    checkTxid(txid);
    if (!Number.isSafeInteger(amountCents) || amountCents < 1) throw invalid('amountCents must be a positive integer');
    const key = parsePixKey(input.key);
    if (!key) throw invalid('key is not a valid PIX key');
    if (!Number.isSafeInteger(expiresInSeconds) || expiresInSeconds < 1) throw invalid('expiresInSeconds must be a positive integer');
    if (description !== undefined && description.length > PIX_DESCRIPTION_MAX) throw invalid(`description must be at most ${PIX_DESCRIPTION_MAX} characters`);
    const res = await this.authed('PUT', cobPath(txid), {
      calendario: { expiracao: expiresInSeconds },
      valor: { original: centsToAmountText(amountCents) },
      chave: key.key,
      ...(description ? { solicitacaoPagador: description } : {}),
    });
    const charge = this.charge(res, 'create charge', txid);
    this.log.info({ txid, amountCents, status: charge.status }, 'pix_psp charge created');
    return charge;
  }

  async getCharge(txid: string): Promise<PixCharge> {
    checkTxid(txid);
    return this.charge(await this.authed('GET', cobPath(txid)), 'get charge', txid);
  }

  async cancelCharge(txid: string): Promise<PixCharge> {
    checkTxid(txid);
    const res = await this.authed('PATCH', cobPath(txid), { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
    try {
      const charge = this.charge(res, 'cancel charge', txid);
      this.log.info({ txid }, 'pix_psp charge removed');
      return charge;
    } catch (err) {
      // No longer active: removed before (cancelling twice is harmless) or paid meanwhile (the refusal stands).
      if (!isRefused(err) || err.status !== 400) throw err;
      const now = await this.getCharge(txid);
      if (now.status === 'removed') return now;
      throw err;
    }
  }

  async refund({ endToEndId, refundId, amountCents }: PixRefundInput): Promise<PixRefund> {
    if (!PIX_END_TO_END_ID.test(endToEndId)) throw invalid('endToEndId must be 32 letters and digits');
    if (!PIX_REFUND_ID.test(refundId)) throw invalid('refundId must be 1 to 35 letters and digits');
    if (!Number.isSafeInteger(amountCents) || amountCents < 1) throw invalid('amountCents must be a positive integer');
    const path = `/v2/pix/${endToEndId}/devolucao/${refundId}`;
    const res = await this.authed('PUT', path, { valor: centsToAmountText(amountCents) });
    if (!isOk(res.status)) throw errorForStatus(PixPspError, 'refund', res);
    const refund = readDevolucao(res.body, endToEndId);
    if (!refund) throw badResponse(PixPspError, 'refund', res, 'not a devolução');
    if (refund.refundId !== refundId) throw badResponse(PixPspError, 'refund', res, `devolução ${refund.refundId}, not ${refundId}`);
    this.log.info({ ...refund }, 'pix_psp refund requested');
    return refund;
  }

  /** A 2xx answer read into the charge `txid`; a refusal or an answer that is not one thrown. */
  private charge(res: ProviderResponse, operation: string, txid: string): PixCharge {
    if (!isOk(res.status)) throw errorForStatus(PixPspError, operation, res);
    const charge = readCob(res.body);
    if (!charge) throw badResponse(PixPspError, operation, res, 'not a cob');
    if (charge.txid !== txid) throw badResponse(PixPspError, operation, res, `charge ${charge.txid}, not ${txid}`);
    return charge;
  }
}

const cobPath = (txid: string) => `/v2/cob/${txid}`;

function checkTxid(txid: string) {
  if (!PIX_TXID.test(txid)) throw invalid('txid must be 26 to 35 letters and digits');
}

const invalid = (message: string) => new PixPspError('refused', `pix_psp: ${message}`, { code: 'invalid_request' });
