/**
 * Devoluções of the Pix received (`PUT /v2/pix/{e2eid}/devolucao/{id}` with `{ valor }`), on the refund
 * ledger the other simulators use: partial ones add up to at most the Pix, the same `id` on the same Pix
 * replays the first one (another `valor` under it is a 409), an unknown Pix is a 404. The simulated SPI
 * settles each one at once (`DEVOLVIDO`).
 */
import type { Clock } from '../../../platform/clock.js';
import { amountTextToCents, centsToAmountText, centsToDecimal } from '../../money.js';
import { refundLedger, type RefundablePayment, type SimRefund } from '../../simulator/refunds.js';
import { PIX_REFUND_ID } from '../wire.js';
import { invalidField, PixSimError, spiId } from './state.js';

const REFUSAL_TYPES: Record<string, string> = {
  not_found: 'PixNaoEncontrado',
  idempotency_key_reused: 'DevolucaoIdJaUtilizado',
};

export function devolucaoBook(clock: Clock) {
  const ledger = refundLedger(clock);
  const rtrIds = new Map<number, string>(); // ledger refund id -> rtrId

  function view(r: SimRefund) {
    const at = new Date(r.createdAt).toISOString();
    return {
      id: r.idempotencyKey,
      rtrId: rtrIds.get(r.id)!,
      valor: centsToAmountText(r.amountCents),
      horario: { solicitacao: at, liquidacao: at },
      status: 'DEVOLVIDO' as const,
    };
  }

  return {
    view,
    /** Asks for a devolução of `payment` (undefined: no such Pix); `replayed` when the id was seen with the same valor. */
    request(endToEndId: string, id: string, payment: RefundablePayment | undefined, body: Record<string, unknown>) {
      if (!PIX_REFUND_ID.test(id)) throw invalidField('DevolucaoOperacaoInvalida', 'id', 'deve ter de 1 a 35 letras e dígitos');
      const cents = amountTextToCents(body.valor);
      if (cents === null) throw invalidField('DevolucaoOperacaoInvalida', 'valor', 'deve ser um valor positivo com duas casas decimais');
      const out = ledger.refund({ paymentId: endToEndId, payment, key: id, body: { amount: centsToDecimal(cents) }, scope: endToEndId });
      if ('refusal' in out) {
        const { status, code, message } = out.refusal;
        throw new PixSimError(status, REFUSAL_TYPES[code] ?? 'DevolucaoOperacaoInvalida', 'Devolução não realizada.', message);
      }
      if (!rtrIds.has(out.refund.id)) rtrIds.set(out.refund.id, spiId('D', new Date(out.refund.createdAt)));
      return { devolucao: view(out.refund), replayed: out.replayed };
    },
    /** The devolução `id` of a Pix, if any. */
    find: (endToEndId: string, id: string) => ledger.refundsOf(endToEndId).find((r) => r.idempotencyKey === id),
    refundsOf: ledger.refundsOf,
    list: ledger.list,
    captured: ledger.captured,
  };
}
export type DevolucaoBook = ReturnType<typeof devolucaoBook>;
