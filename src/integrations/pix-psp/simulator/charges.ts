/**
 * The simulated PSP's charges: created and removed through the API Pix, paid by a simulated payer when a
 * test or a person says so (the control API), each payment reported by webhook. It decides nothing by itself.
 *
 * The BR Code (`pixCopiaECola`) is built with `buildPixPayload`: a SIMPLIFICATION of a dynamic code, which
 * carries in field 26 the URL of a payload the payer's bank fetches (subfield 25, our `location`) and `***`
 * in field 62-05. Here field 26 carries the key (as a static code does) with the charge's amount, and 62-05
 * stays `***`: a 26-35 character txid does not fit the 25 characters a static code allows.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../../platform/clock.js';
import { buildPixPayload } from '../../../platform/pix/brcode.js';
import { parsePixKey } from '../../../platform/pix/pix-key.js';
import type { ProviderLogger } from '../../http.js';
import { amountTextToCents } from '../../money.js';
import type { RefundablePayment } from '../../simulator/refunds.js';
import { PIX_DESCRIPTION_MAX } from '../client.js';
import { PIX_TXID } from '../wire.js';
import { invalidField, PixSimError, spiId, viewCharge, viewPix, type SimCharge, type SimChargeView, type SimPix, type SimPixView } from './state.js';
import type { PixWebhookDelivery, PixWebhookSender } from './webhooks.js';

export interface ChargeBookOptions {
  clock: Clock;
  log: ProviderLogger;
  webhooks: PixWebhookSender;
  /** Shown in the BR Code (field 59 / 60). */
  merchantName: string;
  merchantCity: string;
  /** Host of the charges' `location`. */
  locationHost: string;
}

export interface PayOptions {
  /** Default: the charge's amount. */
  amountCents?: number;
  /** `infoPagador`. */
  payerMessage?: string;
}

const DEFAULT_EXPIRY_SECONDS = 86_400;
const invalid = (field: string, reason: string) => invalidField('CobOperacaoInvalida', field, reason);

export function chargeBook({ clock, log, webhooks, merchantName, merchantCity, locationHost }: ChargeBookOptions) {
  const charges = new Map<string, SimCharge>();
  const pixByE2e = new Map<string, SimPix>();

  function find(txid: string): SimCharge {
    const c = charges.get(txid);
    if (!c) throw new PixSimError(404, 'CobNaoEncontrado', 'Cobrança não encontrada.', `A cobrança ${txid} não existe.`);
    return c;
  }

  /** `PUT /v2/cob/{txid}`: the new charge, or the existing one when the body is the same (`created` false). */
  function put(txid: string, body: Record<string, unknown>): { charge: SimCharge; created: boolean } {
    if (!PIX_TXID.test(txid)) throw invalid('txid', 'deve ter de 26 a 35 letras e dígitos');
    const calendario = (body.calendario ?? {}) as Record<string, unknown>;
    const expiresInSeconds = calendario.expiracao ?? DEFAULT_EXPIRY_SECONDS;
    if (!Number.isSafeInteger(expiresInSeconds) || (expiresInSeconds as number) < 1) throw invalid('calendario.expiracao', 'deve ser um inteiro positivo');
    const amountCents = amountTextToCents((body.valor as Record<string, unknown> | undefined)?.original);
    if (amountCents === null) throw invalid('valor.original', 'deve ser um valor positivo com duas casas decimais');
    const key = typeof body.chave === 'string' ? parsePixKey(body.chave) : null;
    if (!key) throw invalid('chave', 'não é uma chave Pix válida');
    const description = body.solicitacaoPagador ?? null;
    if (description !== null && (typeof description !== 'string' || description.length > PIX_DESCRIPTION_MAX)) {
      throw invalid('solicitacaoPagador', `deve ter até ${PIX_DESCRIPTION_MAX} caracteres`);
    }
    const request = JSON.stringify([expiresInSeconds, amountCents, key.key, description]);
    const existing = charges.get(txid);
    if (existing) {
      if (existing.request === request) return { charge: existing, created: false };
      throw new PixSimError(409, 'CobOperacaoInvalida', 'Cobrança já existe.', `A cobrança ${txid} já existe com outros dados.`);
    }
    const charge: SimCharge = {
      txid,
      revision: 0,
      status: 'ATIVA',
      createdAt: clock.now(),
      expiresInSeconds: expiresInSeconds as number,
      amountCents,
      key: key.key,
      description,
      location: `${locationHost}/qr/v2/${randomUUID().replace(/-/g, '')}`,
      brCode: buildPixPayload({ key: key.key, amountCents, merchantName, merchantCity }),
      request,
      pix: [],
    };
    charges.set(txid, charge);
    log.info({ txid, amountCents }, 'pix_psp simulator: charge created');
    return { charge, created: true };
  }

  function removeAs(txid: string, status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' | 'REMOVIDA_PELO_PSP'): SimCharge {
    const charge = find(txid);
    if (charge.status !== 'ATIVA') {
      throw new PixSimError(400, 'CobOperacaoInvalida', 'Cobrança não está ativa.', `A cobrança ${txid} está ${charge.status} e não pode ser removida.`);
    }
    charge.status = status;
    charge.revision++;
    log.info({ txid, status }, 'pix_psp simulator: charge removed');
    return charge;
  }

  /** `PATCH /v2/cob/{txid}`: the simulator only supports the removal by the receiver. */
  function patch(txid: string, body: Record<string, unknown>): SimCharge {
    find(txid);
    if (body.status !== 'REMOVIDA_PELO_USUARIO_RECEBEDOR' || Object.keys(body).length !== 1) {
      throw invalid('status', 'o simulador só aceita { status: "REMOVIDA_PELO_USUARIO_RECEBEDOR" }');
    }
    return removeAs(txid, 'REMOVIDA_PELO_USUARIO_RECEBEDOR');
  }

  /** A payer pays the charge (in full unless told another amount); the webhook goes out. */
  async function pay(txid: string, opts: PayOptions = {}): Promise<{ charge: SimChargeView; pix: SimPixView; webhook: PixWebhookDelivery }> {
    const charge = find(txid);
    if (charge.status !== 'ATIVA') throw new PixSimError(409, 'not_active', 'Cobrança não está ativa.', `charge ${txid} is ${charge.status}`);
    const now = clock.now();
    if (now.getTime() >= charge.createdAt.getTime() + charge.expiresInSeconds * 1000) {
      throw new PixSimError(409, 'expired', 'Cobrança expirada.', `charge ${txid} expired; the payer's bank refuses it`);
    }
    const amountCents = opts.amountCents ?? charge.amountCents;
    if (!Number.isSafeInteger(amountCents) || amountCents < 1) throw new PixSimError(400, 'bad_request', 'Requisição inválida.', 'amountCents must be a positive integer');
    const pix: SimPix = { endToEndId: spiId('E', now), txid, amountCents, key: charge.key, paidAt: now, payerMessage: opts.payerMessage ?? null };
    charge.pix.push(pix);
    charge.status = 'CONCLUIDA';
    pixByE2e.set(pix.endToEndId, pix);
    log.info({ txid, endToEndId: pix.endToEndId, amountCents }, 'pix_psp simulator: charge paid');
    const webhook = await webhooks.notify(pix);
    return { charge: viewCharge(charge), pix: viewPix(pix), webhook };
  }

  /** The received Pix, as the devoluções see them. */
  const refundable = (p: SimPix): RefundablePayment => ({ id: p.endToEndId, amountCents: p.amountCents, approved: true });

  return {
    find,
    put,
    patch,
    pay,
    /** The PSP removes an active charge (`REMOVIDA_PELO_PSP`). */
    remove: (txid: string) => removeAs(txid, 'REMOVIDA_PELO_PSP'),
    /** Notifies a received Pix again (a duplicate, as PSPs do). */
    resend(endToEndId: string): Promise<PixWebhookDelivery> {
      const pix = pixByE2e.get(endToEndId);
      if (!pix) throw new PixSimError(404, 'PixNaoEncontrado', 'Pix não encontrado.', `O Pix ${endToEndId} não existe.`);
      return webhooks.notify(pix);
    },
    pix: (endToEndId: string): SimPix | undefined => pixByE2e.get(endToEndId),
    refundable(endToEndId: string): RefundablePayment | undefined {
      const p = pixByE2e.get(endToEndId);
      return p && refundable(p);
    },
    payments: (): RefundablePayment[] => [...pixByE2e.values()].map(refundable),
    get(txid: string): SimChargeView | undefined {
      const c = charges.get(txid);
      return c && viewCharge(c);
    },
    /** Oldest first. */
    list: (): SimChargeView[] => [...charges.values()].map(viewCharge),
    /** Every Pix received, oldest first. */
    listPix: () => [...pixByE2e.values()].map(viewPix),
  };
}
export type ChargeBook = ReturnType<typeof chargeBook>;
