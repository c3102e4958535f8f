import { isKeyTaken, type ClaimKey } from '../../platform/idempotency.js';
import { randomBytes } from 'node:crypto';
import { isId, newId } from '../../db/ids.js';
import type { TenantDb, TenantTx } from '../../db/scopes.js';
import type { OrderRow, PaymentMethod } from '../../db/schema/orders.js';
import type { PaymentRow, RefundReason } from '../../db/schema/payments.js';
import { isIntegrationError, isRefused, type IntegrationError } from '../../integrations/errors.js';
import { checkGatewayASignature, parseGatewayAWebhook, TERMINAL_SERIAL } from '../../integrations/gateway-a/index.js';
import { checkPixPspSignature, parsePixPspWebhook } from '../../integrations/pix-psp/index.js';
import type { Integrations } from '../../integrations/registry.js';
import type { TenantCtx } from '../../platform/auth/guards.js';
import type { Deps } from '../../platform/deps.js';
import { Conflict, Declined, Invalid, InvalidRequest, isUniqueViolation, NotFound, Rejected, Unauthenticated, Unavailable } from '../../platform/domain-errors.js';
import type { TenantRef } from '../../platform/tenancy.js';
import type { BranchesService } from '../branches/index.js';
import { amountDue, billedQuantity, toBillView, type CreateOrderInput, type OrdersService } from '../orders/index.js';
import type { ShiftsService } from '../shifts/index.js';
import type { TenantsService } from '../tenants/index.js';
import { paymentJobs, type PaymentExpiryJob, type RefundJob, type WalletRefundJob } from './payments.jobs.js';
import type { AuditService } from '../audit/index.js';
import * as q from './payments.queries.js';
import { applyAmount, deriveOrderPayment } from './payments.rules.js';
import { pixQrPngBase64 } from '../../platform/pix/qr.js';

/** How long a terminal payment may stay `processing` before the service cancels it (spec 8). */
export const PAYMENT_TIMEOUT_MS = 60_000;
/** How long a dynamic PIX charge stays payable: a guest switching to the bank app and back. */
export const PIX_CHARGE_TTL_S = 600;
/** Queue names of the payment jobs (declared in `payments.jobs.ts`). */
export const PAYMENT_EXPIRY_JOB = paymentJobs.expire.name;
export const PAYMENT_SWEEP_JOB = paymentJobs.sweep.name;

export interface ProcessPaymentInput {
  method: PaymentMethod;
  gateway: 'mock' | 'gateway_a' | 'pix_psp';
  gatewayATerminalSerial?: string;
  /** Cents to apply to the bill; default: all that is due. Cash may exceed it (change given back). */
  amount?: number;
  /** Cents of tip on top (card: charged with the amount). */
  tip?: number;
}

function providerFailure(err: IntegrationError, what: string): Rejected | Unavailable {
  if (isRefused(err)) return new Rejected(`${what} refused by the payment provider: ${err.message}`, 'provider_refused');
  return new Unavailable(`${what}: the payment provider is unavailable, try again`, 'provider_unavailable');
}

/**
 * Told inside the transaction where a payment became `approved` (taken at the counter, settled by a gateway,
 * a wallet charge recorded) or `refunded` (given back by hand, or confirmed by the gateway): the accounting
 * module posts it from there.
 */
export type PaymentListener = (tx: TenantTx, payment: PaymentRow) => Promise<unknown> | unknown;

/** The gateway does not know the intent (it expired on its side, or never reached it). */
const unknownIntent = (err: unknown) => isRefused(err) && err.status === 404;

/** Who decided a refund: a user (the audit's actor), or what decided it on its own (`gateway:gateway_a`, `delivery:provider_a`). */
type RefundDecider = { userId: string } | { by: string };

/**
 * Who cancelled the order whose payments are refunded: the last change of its status history, written with the
 * caller of the route in the same transaction (`by`: a user id), or a platform's cancellation (`by`: `delivery:<provider>`).
 */
function cancelledBy(order: OrderRow): RefundDecider {
  const by = order.statusHistory.at(-1)?.by ?? 'unknown';
  return isId(by) ? { userId: by } : { by };
}

export function paymentsService(
  deps: Deps,
  {
    orders,
    integrations,
    tenants,
    branches,
    shifts,
    audit,
  }: { orders: OrdersService; integrations: Integrations; tenants: TenantsService; branches: BranchesService; shifts: ShiftsService; audit: AuditService },
) {
  const { clock, realtime, jobs, log } = deps;
  const approvedListeners: PaymentListener[] = [];
  const refundedListeners: PaymentListener[] = [];
  /** Tells the listeners, in the transaction of the change, that a payment is now approved. */
  async function approvedNow(tx: TenantTx, payment: PaymentRow) {
    for (const listener of approvedListeners) await listener(tx, payment);
  }
  /** Tells the listeners, in the transaction of the change, that a payment is now refunded. */
  async function refundedNow(tx: TenantTx, payment: PaymentRow) {
    for (const listener of refundedListeners) await listener(tx, payment);
  }

  /** Writes to the order what its ledger now says (the order locked by the caller's transaction). */
  async function refresh(tx: TenantTx, order: OrderRow, extra: Partial<OrderRow> = {}): Promise<OrderRow> {
    const rows = await q.paymentsOfOrder(tx.db, tx.tenantId, order.id);
    return orders.applyPayment(tx, order, { ...deriveOrderPayment(order, rows), ...extra });
  }

  /** Staff see the payment ids in the kitchen; the tracking room gets the public status only (guest orders). */
  async function announcePayment(t: TenantDb, order: OrderRow) {
    const payload = {
      orderId: order.id,
      orderNumber: order.orderNumber,
      paymentStatus: order.paymentStatus,
      paymentGateway: order.paymentGateway,
      transactionId: order.paymentTransactionId,
      intentId: order.paymentIntentId,
      total: order.total,
      amountPaid: order.amountPaid,
      amountDue: amountDue(order),
    };
    await orders.toKitchen(t, order, 'paymentUpdate', payload);
    const tracked = orders.trackedPayment(order);
    if (tracked) realtime.toOrder(order.tenantId, order.orderNumber, 'paymentUpdate', tracked);
  }

  /**
   * Applies a final gateway result once: the order is locked first (the lock every change of its bill
   * takes), then the payment re-read; a payment no longer `processing` is left as it is.
   */
  async function settle(tx: TenantTx, paymentId: string, outcome: 'approved' | 'declined' | 'cancelled', transactionId: string | null) {
    const payment = await q.findPayment(tx.db, tx.tenantId, paymentId);
    const order = payment && (await orders.lockById(tx, payment.orderId));
    const current = order && (await q.findPayment(tx.db, tx.tenantId, paymentId));
    if (!order || !current) return null;
    if (current.status === 'processing') {
      const row = await q.updatePayment(tx.db, tx.tenantId, paymentId, { status: outcome, transactionId, settledAt: clock.now() });
      if (outcome === 'approved') await approvedNow(tx, row);
      return refresh(tx, order);
    }
    // The gateway took money we had given up on (expired, cancelled): it is recorded, then given back.
    if (outcome === 'approved' && (current.status === 'declined' || current.status === 'cancelled')) {
      log.warn({ paymentId, orderId: order.id, was: current.status }, 'late approval of a payment given up on: refunding it');
      const row = await q.updatePayment(tx.db, tx.tenantId, paymentId, { status: 'approved', transactionId, settledAt: clock.now() });
      await approvedNow(tx, row);
      return requestRefunds(tx, order, 'late_approval', { by: `gateway:${row.gateway}` }, paymentId);
    }
    return null;
  }

  /**
   * Decides the refund of an order's approved payments (or one of them), in the caller's transaction
   * with the order locked: money taken by hand (mock: cash, a standalone card machine) is recorded as
   * given back at once; a gateway's is queued (`paymentJobs.refund`, retried until it is confirmed).
   * `decider`: the user who decided it (audited as the actor), or what did on its own (`by`, in the details).
   */
  async function requestRefunds(tx: TenantTx, order: OrderRow, reason: RefundReason, decider: RefundDecider, onlyPaymentId?: string): Promise<OrderRow> {
    const now = clock.now();
    for (const p of await q.paymentsOfOrder(tx.db, tx.tenantId, order.id)) {
      if (p.status !== 'approved' || p.refundRequestedAt || (onlyPaymentId && p.id !== onlyPaymentId)) continue;
      // The decision to give the money back (by hand: done now; a gateway's: queued), by its decider.
      const details = { orderId: order.id, orderNumber: order.orderNumber, amountCents: p.amount, method: p.method, gateway: p.gateway, reason };
      const actorId = 'userId' in decider ? decider.userId : null;
      await audit.record(tx, {
        action: 'payment.refunded',
        actorId,
        targetType: 'payment',
        targetId: p.id,
        details: 'by' in decider ? { ...details, by: decider.by } : details,
      });
      if (p.gateway === 'mock') {
        const row = await q.updatePayment(tx.db, tx.tenantId, p.id, {
          status: 'refunded',
          refundRequestedAt: now,
          refundReason: reason,
          refundId: `manual-${randomBytes(6).toString('hex')}`,
          refundedAt: now,
        });
        await refundedNow(tx, row);
      } else {
        await q.updatePayment(tx.db, tx.tenantId, p.id, { refundRequestedAt: now, refundReason: reason });
        await jobs.send(paymentJobs.refund, { tenantId: tx.tenantId, paymentId: p.id }, { singletonKey: p.id, tx: tx.db });
      }
    }
    return refresh(tx, order);
  }

  /** Gives a payment's money back through the gateway that took it (the refund is keyed by our payment id: a retry refunds once). */
  async function refundAtGateway(tenantId: string, p: PaymentRow): Promise<string> {
    const amountCents = p.amount + p.tip;
    if (!p.transactionId) throw new Error(`payment ${p.id} has no transaction id to refund`);
    if (p.gateway === 'gateway_a') {
      if (!integrations.gatewayA.client) throw new Error('gateway_a is off: its payments cannot be refunded now');
      return (await integrations.gatewayA.client.refundPayment({ paymentId: p.transactionId, amountCents, idempotencyKey: p.id })).refundId;
    }
    if (p.gateway === 'pix_psp') {
      if (!integrations.pixPsp.client) throw new Error('the PIX provider is off: its refunds wait for it');
      const r = await integrations.pixPsp.client.refund({ endToEndId: p.transactionId, refundId: p.id, amountCents });
      // A devolução may still be processing at the PSP: asked again with the same id, it answers its state.
      if (r.status !== 'approved') throw new Error(`PIX refund ${r.refundId} is ${r.status}: asked again later`);
      return r.refundId;
    }
    const accessToken = await tenants.secret(tenantId, 'walletAccessToken');
    if (!accessToken) throw new Error('the wallet access token is gone: the refund waits for it');
    return (await integrations.wallet.client.refund({ accessToken, paymentId: p.transactionId, amountCents, idempotencyKey: p.id })).refundId;
  }

  /** The PIX key a charge of this order is paid to: its PDV's, else the tenant's (read before the transaction). */
  async function pixKeyFor(tx: TenantTx, order: OrderRow, tenantKey: string | null): Promise<string> {
    const pdv = order.pdvId ? await branches.findPdv(tx, order.pdvId) : null;
    const key = pdv?.pixKey ?? tenantKey;
    if (!key) throw new InvalidRequest('No PIX key is set for this restaurant or its point of sale', 'pix_not_configured');
    return key;
  }

  /** The `paymentJobs.refund` handler. */
  async function refund(job: RefundJob) {
    const t = deps.tenantDb(job.tenantId);
    const payment = await t.run((tx) => q.findPayment(tx.db, tx.tenantId, job.paymentId));
    if (payment?.status !== 'approved' || !payment.refundRequestedAt) return 'nothing to refund';
    const refundId = await refundAtGateway(job.tenantId, payment);
    const updated = await t.run(async (tx) => {
      const order = await orders.lockById(tx, payment.orderId);
      const current = await q.findPayment(tx.db, tx.tenantId, payment.id);
      if (!order || current?.status !== 'approved') return null;
      const row = await q.updatePayment(tx.db, tx.tenantId, payment.id, { status: 'refunded', refundId, refundedAt: clock.now() });
      await refundedNow(tx, row);
      return refresh(tx, order);
    });
    if (updated) await announcePayment(t, updated);
    return 'refunded';
  }

  orders.onCancelWithPayments((tx, order) => requestRefunds(tx, order, 'order_cancelled', cancelledBy(order)));
  // A bill that changed (a round, a discount, a void) owes again, or is now paid: the ledger says which.
  orders.onBillChange((tx, order) => refresh(tx, order));
  // A cashier shift's close (and its withdrawals) count what its payments took.
  shifts.onTotals((tx, shiftId) => q.salesOfShift(tx.db, tx.tenantId, shiftId));

  /** The shift open at the order's PDV now (the drawer the money goes to), held until the transaction ends; null without one. */
  const shiftOf = (tx: TenantTx, order: OrderRow) => (order.pdvId ? shifts.openShiftOf(tx, order.pdvId) : Promise.resolve(null));

  type Finish = { outcome: 'approved' | 'declined'; transactionId: string | null };

  /** A terminal intent past its time: cancelled at the gateway, or the result the terminal reached before the cancel. */
  async function finishTerminalIntent(serial: string, intentId: string): Promise<Finish> {
    try {
      await integrations.gatewayA.client!.cancelPaymentIntent(serial, intentId);
    } catch (err) {
      if (!isRefused(err)) throw err; // unavailable: the job is retried
      try {
        const intent = await integrations.gatewayA.client!.getPaymentIntent(intentId);
        if (intent.status === 'approved') return { outcome: 'approved', transactionId: intent.paymentId };
      } catch (e) {
        if (!unknownIntent(e)) throw e;
      }
    }
    return { outcome: 'declined', transactionId: null };
  }

  /** A PIX charge past its time: removed at the PSP, or paid just before (its Pix is taken). */
  async function finishPixCharge(txid: string): Promise<Finish> {
    const client = integrations.pixPsp.client;
    if (!client) throw new Error('the PIX provider is off: its charges are settled when it is back');
    try {
      await client.cancelCharge(txid);
    } catch (err) {
      if (!isRefused(err)) throw err;
      try {
        const charge = await client.getCharge(txid);
        const paid = charge.payments[0];
        if (charge.status === 'paid' && paid) return { outcome: 'approved', transactionId: paid.endToEndId };
      } catch (e) {
        if (!unknownIntent(e)) throw e;
      }
    }
    return { outcome: 'declined', transactionId: null };
  }

  /** How long a payment may stay `processing`: a card at the terminal a minute, a PIX charge ten. */
  const timeoutOf = (p: PaymentRow) => (p.gateway === 'pix_psp' ? PIX_CHARGE_TTL_S * 1000 : PAYMENT_TIMEOUT_MS);

  /**
   * The `paymentJobs.expire` handler: cancels an overdue terminal payment or PIX charge, or takes the
   * result it reached. An intent the gateway no longer knows (404) is declined: the bill is payable again.
   */
  async function expire(job: PaymentExpiryJob) {
    const t = deps.tenantDb(job.tenantId);
    const payment = await t.run((tx) => q.findPayment(tx.db, tx.tenantId, job.paymentId));
    if (payment?.status !== 'processing') return 'not processing';
    // The queue runs this job by the database clock; allow it a little skew against ours.
    if (clock.now().getTime() - payment.createdAt.getTime() < timeoutOf(payment) - 2_000) {
      throw new Error('payment timeout not reached yet: retried later');
    }
    const { outcome, transactionId } =
      payment.gateway === 'pix_psp' ? await finishPixCharge(job.intentId) : await finishTerminalIntent(job.terminalSerial ?? payment.terminalSerial ?? '', job.intentId);
    const updated = await t.run((tx) => settle(tx, payment.id, outcome, transactionId));
    if (updated) await announcePayment(t, updated);
    return outcome;
  }

  /**
   * The `paymentJobs.sweep` handler, a safety net for an expiry job lost with a crashed process: expires what is overdue.
   * Crossing tenants is limited to listing the overdue payments (`payment-sweep`); each is then handled with its tenant's handle.
   */
  async function sweep() {
    const before = new Date(clock.now().getTime() - PAYMENT_TIMEOUT_MS);
    const stale = await deps.bypass('payment-sweep', (db) => q.staleProcessing(db, before));
    for (const s of stale) {
      const t = deps.tenantDb(s.tenantId);
      const payment = await t.run((tx) => q.findPayment(tx.db, tx.tenantId, s.id));
      if (payment?.status !== 'processing' || clock.now().getTime() - payment.createdAt.getTime() < timeoutOf(payment)) continue;
      if (payment.intentId) {
        await expire({ tenantId: s.tenantId, paymentId: payment.id, terminalSerial: payment.terminalSerial ?? undefined, intentId: payment.intentId });
      } else {
        // The process stopped between claiming the bill and reaching the terminal: nothing was charged.
        const updated = await t.run((tx) => settle(tx, payment.id, 'cancelled', null));
        if (updated) await announcePayment(t, updated);
      }
    }
    return stale.length;
  }

  /** The terminal serial of a payment: given, else the PDV's; it must be a terminal of one of the tenant's PDVs. */
  async function terminalFor(tx: TenantTx, order: OrderRow, given: string | undefined): Promise<string> {
    const pdv = order.pdvId ? await branches.findPdv(tx, order.pdvId) : null;
    const serial = given ?? pdv?.gatewayATerminalSerial ?? null;
    if (!serial) throw new Invalid('gatewayATerminalSerial', 'is required: the order has no PDV with a card terminal');
    if (!TERMINAL_SERIAL.test(serial)) throw new Invalid('gatewayATerminalSerial', 'must look like T-XXXX');
    // The order's own active PDV holds it: nothing more to look up. Any other serial must be one of the tenant's.
    const ownPdv = pdv?.active && pdv.gatewayATerminalSerial === serial;
    if (!ownPdv && !(await branches.findPdvByTerminal(tx, serial))) {
      throw new Invalid('gatewayATerminalSerial', "is not the card terminal of one of this restaurant's points of sale");
    }
    return serial;
  }

  /** One payment row claimed on a locked order; a concurrent second one loses on the one-in-flight index. */
  async function claim(ctx: TenantCtx, id: string, input: ProcessPaymentInput, kind: 'mock' | 'gateway_a' | 'pix_psp', at?: Date, claimKey?: ClaimKey) {
    const terminal = kind !== 'mock';
    // The tenants table is read with the shared handle: before the tenant's transaction, never inside it.
    const tenant = kind === 'pix_psp' || input.method === 'cash' ? await tenants.findById(ctx.tenantId) : null;
    const tenantKey = kind === 'pix_psp' ? (tenant?.pixKey ?? null) : null;
    try {
      return await ctx.db.run(async (tx) => {
        const order = await orders.loadForUpdate(tx, ctx, id);
        orders.assertPayable(order);
        const applied = applyAmount(input.method, amountDue(order), input.amount);
        if ('error' in applied) throw new Invalid('amount', applied.error);
        const serial = kind === 'gateway_a' ? await terminalFor(tx, order, input.gatewayATerminalSerial) : null;
        const pixKey = kind === 'pix_psp' ? await pixKeyFor(tx, order, tenantKey) : null;
        const shiftId = await shiftOf(tx, order);
        // Cash goes into a drawer someone answers for: with `requireShift`, not at a PDV without an open shift.
        if (input.method === 'cash' && tenant?.requireShift && order.pdvId && !shiftId && order.source !== 'wallet') {
          throw new Conflict('Cash is taken only during a cashier shift: open a shift at this point of sale first', 'shift_required');
        }
        const now = at ?? clock.now();
        const payment = await q.insertPayment(tx.db, {
          tenantId: tx.tenantId,
          id: newId(),
          orderId: order.id,
          attempt: order.paymentAttempts + 1,
          method: input.method,
          gateway: kind,
          amount: applied.amount,
          tip: input.tip ?? 0,
          tendered: applied.tendered,
          status: terminal ? 'processing' : 'approved',
          transactionId: terminal ? null : `mock-${randomBytes(8).toString('hex')}`,
          terminalSerial: serial,
          shiftId,
          createdBy: ctx.user.id,
          settledAt: terminal ? null : now,
          ...(at ? { createdAt: at, updatedAt: at } : {}),
        });
        if (payment.status === 'approved') await approvedNow(tx, payment);
        await claimKey?.(tx.db, payment.id, 200);
        return { payment, order: await refresh(tx, order), pixKey };
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new Conflict('Another payment of this order started at the same moment', 'payment_in_progress');
      throw err;
    }
  }

  const outcomeOf = (payment: PaymentRow, order: OrderRow) => ({
    paymentId: payment.id,
    amount: payment.amount,
    tip: payment.tip,
    change: payment.tendered === null ? 0 : payment.tendered - payment.amount,
    amountDue: amountDue(order),
  });

  /** Records a wallet charge that was approved before its order existed, in the order's transaction. */
  async function recordWalletCharge(tx: TenantTx, order: OrderRow, chargeId: string, amount: number) {
    const payment = await q.insertPayment(tx.db, {
      tenantId: tx.tenantId,
      id: newId(),
      orderId: order.id,
      attempt: 1,
      method: order.paymentMethod ?? 'card',
      gateway: 'wallet',
      amount,
      status: 'approved',
      transactionId: chargeId,
      shiftId: await shiftOf(tx, order),
      settledAt: clock.now(),
    });
    await approvedNow(tx, payment);
    return refresh(tx, order);
  }

  /** A delivery platform's prepaid order: the platform collected `amount`; approved now, in the order's transaction. */
  async function recordMarketplacePayment(tx: TenantTx, order: OrderRow, reference: string, amount: number) {
    const payment = await q.insertPayment(tx.db, {
      tenantId: tx.tenantId,
      id: newId(),
      orderId: order.id,
      attempt: 1,
      method: 'card',
      gateway: 'marketplace',
      amount,
      status: 'approved',
      transactionId: reference,
      shiftId: null,
      settledAt: clock.now(),
    });
    await approvedNow(tx, payment);
    return refresh(tx, order);
  }

  /**
   * A dynamic PIX charge at the PSP for a claimed payment: its txid is our payment id, its BR Code goes
   * on the order (the guest's page shows it) and in the answer; the PSP's webhook confirms it, the
   * expiry job removes it unpaid after PIX_CHARGE_TTL_S.
   */
  async function startPixCharge(ctx: TenantCtx, payment: PaymentRow, order: OrderRow, key: string) {
    const txid = `pix${payment.id}`;
    let brCode: string;
    try {
      ({ brCode } = await integrations.pixPsp.client!.createCharge({
        txid,
        amountCents: payment.amount + payment.tip,
        key,
        description: `Pedido ${order.orderNumber}`,
        expiresInSeconds: PIX_CHARGE_TTL_S,
      }));
    } catch (err) {
      const back = await ctx.db.run((tx) => settle(tx, payment.id, 'cancelled', null));
      if (back) await announcePayment(ctx.db, back);
      if (isIntegrationError(err)) throw providerFailure(err, 'PIX charge');
      throw err;
    }
    const pixQrCodeBase64 = await pixQrPngBase64(brCode);
    const updated = await ctx.db.run(async (tx) => {
      const locked = await orders.lockById(tx, order.id);
      await q.updatePayment(tx.db, tx.tenantId, payment.id, { intentId: txid });
      const job = { tenantId: tx.tenantId, paymentId: payment.id, intentId: txid };
      await jobs.send(paymentJobs.expire, job, { startAfter: PIX_CHARGE_TTL_S, singletonKey: payment.id, tx: tx.db });
      return refresh(tx, locked!, { pixPayload: brCode, pixQrCodeBase64 });
    });
    await announcePayment(ctx.db, updated);
    return {
      status: 'processing' as const,
      intentId: txid,
      message: `PIX charge of ${order.orderNumber} created; waiting for the payer's bank`,
      pixPayload: brCode,
      pixQrCodeBase64,
      ...outcomeOf(payment, updated),
    };
  }

  /** Refunds a wallet charge that has no order (the `paymentJobs.walletRefund` handler, and the checkout's first try). */
  async function walletRefund(job: WalletRefundJob) {
    const accessToken = await tenants.secret(job.tenantId, 'walletAccessToken');
    if (!accessToken) throw new Error('the wallet access token is gone: the refund waits for it');
    const r = await integrations.wallet.client.refund({ accessToken, paymentId: job.chargeId, amountCents: job.amountCents, idempotencyKey: `checkout-${job.chargeId}` });
    log.warn({ chargeId: job.chargeId, refundId: r.refundId, amountCents: job.amountCents }, 'wallet charge without an order refunded');
    return r.refundId;
  }

  return {
    expire,
    sweep,
    refund,
    walletRefund,

    /** `listener` runs inside the transaction where a payment becomes `approved` (every path: counter, gateway, PIX, wallet, late approval). */
    onApproved(listener: PaymentListener) {
      approvedListeners.push(listener);
    },

    /** `listener` runs inside the transaction where a payment becomes `refunded` (by hand at once, or the gateway's confirmation). */
    onRefunded(listener: PaymentListener) {
      refundedListeners.push(listener);
    },

    /** For the accounting module: a payment of the caller's tenant by id (not locked), or null. */
    findById: (tx: TenantTx, id: string): Promise<PaymentRow | null> => q.findPayment(tx.db, tx.tenantId, id),

    /**
     * Charges an order, all that is due or part of it (`amount`). `mock` (or gateway_a not configured)
     * approves at once, for a cashier who confirms cash or a standalone card machine; `gateway_a` sends an
     * intent to one of the tenant's card terminals and answers `processing`: the result arrives by webhook.
     * `at`: the instant a `mock` payment was taken, instead of now (a past sale of the demo seed; no route
     * passes it); a gateway's payment is always now.
     */
    async processPayment(ctx: TenantCtx, id: string, input: ProcessPaymentInput, { at, claimKey }: { at?: Date; claimKey?: ClaimKey } = {}) {
      if (input.gateway === 'pix_psp' && input.method !== 'pix') throw new Invalid('method', 'a pix_psp charge is paid by pix');
      const kind =
        input.gateway === 'gateway_a' && integrations.gatewayA.client ? 'gateway_a' : input.gateway === 'pix_psp' && integrations.pixPsp.client ? 'pix_psp' : 'mock';
      const { payment, order, pixKey } = await claim(ctx, id, input, kind, kind === 'mock' ? at : undefined, claimKey);
      if (kind === 'pix_psp') return startPixCharge(ctx, payment, order, pixKey!);
      if (kind === 'mock') {
        await announcePayment(ctx.db, order);
        return { status: 'approved' as const, transactionId: payment.transactionId!, ...outcomeOf(payment, order) };
      }
      const serial = payment.terminalSerial!;
      let intentId: string;
      try {
        ({ intentId } = await integrations.gatewayA.client!.createPaymentIntent({
          terminalSerial: serial,
          amountCents: payment.amount + payment.tip,
          externalId: payment.id,
          description: `Pedido ${order.orderNumber}`,
        }));
      } catch (err) {
        // Nothing reached the terminal: the attempt ends cancelled and the bill is payable again.
        const back = await ctx.db.run((tx) => settle(tx, payment.id, 'cancelled', null));
        if (back) await announcePayment(ctx.db, back);
        if (isIntegrationError(err)) throw providerFailure(err, 'Payment intent');
        throw err;
      }
      const updated = await ctx.db.run(async (tx) => {
        const locked = await orders.lockById(tx, order.id);
        await q.updatePayment(tx.db, tx.tenantId, payment.id, { intentId });
        await jobs.send(
          paymentJobs.expire,
          { tenantId: tx.tenantId, paymentId: payment.id, terminalSerial: serial, intentId },
          { startAfter: PAYMENT_TIMEOUT_MS / 1000, singletonKey: payment.id, tx: tx.db },
        );
        return refresh(tx, locked!);
      });
      await announcePayment(ctx.db, updated);
      return {
        status: 'processing' as const,
        intentId,
        message: `Payment of ${order.orderNumber} sent to terminal ${serial}; waiting for the card`,
        ...outcomeOf(payment, updated),
      };
    },

    /**
     * POST /api/gateway-a/webhook: the signature is checked on the raw bytes; a repeated or late
     * webhook (payment no longer processing) changes nothing. Any correctly signed body is acknowledged.
     */
    async gatewayWebhook(rawBody: Buffer, signature: string | string[] | undefined) {
      const check = checkGatewayASignature(rawBody, signature, integrations.gatewayA.webhookSecret);
      if (!check.valid) {
        if (check.reason !== 'missing_secret') throw new Unauthenticated('Invalid webhook signature', 'invalid_signature');
        log.warn('gateway_a webhook accepted without a signature check: no webhook secret is configured');
      }
      // A correctly signed body is acknowledged whatever it says: a gateway disables an endpoint that
      // keeps failing, and an event we do not handle is no reason to lose the next ones.
      let body: unknown;
      try {
        body = JSON.parse(rawBody.toString('utf8'));
      } catch {
        log.warn('gateway_a webhook: a signed body that is not JSON, ignored');
        return { received: true };
      }
      const event = parseGatewayAWebhook(body);
      if (!event) log.info({ body }, 'gateway_a webhook: an event we do not handle, ignored');
      if (!event?.outcome) return { received: true };
      // The webhook names the intent (or our payment as its external reference), not the tenant: crossing
      // tenants is limited to finding whose payment it is; it is then settled with that tenant's handle.
      const { externalId, intentId } = event;
      const ref = await deps.bypass('payment-webhook', async (db) => {
        const byIntent = intentId ? await q.paymentRefByIntent(db, intentId) : null;
        return byIntent ?? (externalId && isId(externalId) ? await q.paymentRefById(db, externalId) : null);
      });
      if (!ref) {
        log.warn({ intentId, externalId }, 'gateway_a webhook for an unknown payment');
        return { received: true };
      }
      const t = deps.tenantDb(ref.tenantId);
      const updated = await t.run(async (tx) => {
        const payment = await q.findPayment(tx.db, tx.tenantId, ref.id);
        if (!payment || (payment.intentId && intentId && payment.intentId !== intentId)) return null;
        return settle(tx, payment.id, event.outcome!, event.transactionId);
      });
      if (updated) await announcePayment(t, updated);
      return { received: true };
    },

    /**
     * POST /api/pix-psp/webhook/pix: the Pix received for our charges (signature on the raw bytes). Each
     * is matched to its charge by txid (crossing tenants only to find whose charge it is) and settles it
     * once; a Pix for an amount other than the charge's is left to the expiry job, which reads the charge
     * at the PSP. Any correctly signed body is acknowledged.
     */
    async pixWebhook(rawBody: Buffer, signature: string | string[] | undefined) {
      const check = checkPixPspSignature(rawBody, signature, integrations.pixPsp.webhookSecret);
      if (!check.valid) {
        if (check.reason !== 'missing_secret') throw new Unauthenticated('Invalid webhook signature', 'invalid_signature');
        log.warn('pix_psp webhook accepted without a signature check: no webhook secret is configured');
      }
      let event: ReturnType<typeof parsePixPspWebhook> = null;
      try {
        event = parsePixPspWebhook(JSON.parse(rawBody.toString('utf8')));
      } catch {
        log.warn('pix_psp webhook: a signed body that is not JSON, ignored');
      }
      for (const pix of event?.payments ?? []) {
        if (!pix.txid) {
          log.info({ endToEndId: pix.endToEndId }, 'pix_psp webhook: a Pix without a charge, ignored');
          continue;
        }
        const txid = pix.txid;
        const ref = await deps.bypass('payment-webhook', (db) => q.paymentRefByIntent(db, txid));
        if (!ref) {
          log.warn({ txid }, 'pix_psp webhook for an unknown charge');
          continue;
        }
        const t = deps.tenantDb(ref.tenantId);
        const updated = await t.run(async (tx) => {
          const payment = await q.findPayment(tx.db, tx.tenantId, ref.id);
          if (payment?.gateway !== 'pix_psp') return null;
          if (pix.amountCents !== payment.amount + payment.tip) {
            log.error({ txid, paid: pix.amountCents, expected: payment.amount + payment.tip }, 'pix_psp webhook: a Pix of another amount than its charge');
            return null;
          }
          return settle(tx, payment.id, 'approved', pix.endToEndId);
        });
        if (updated) await announcePayment(t, updated);
      }
      return { received: true };
    },

    /** Online wallet checkout: charge first; an order exists only for an approved payment. */
    /**
     * For the delivery module: records, in the order's transaction, that the platform collected the order's
     * total (`reference`: the platform and its order id); the sale is posted and the stock deducted as for any
     * approved payment. The money is owed by the platform (accounts receivable) until its payout.
     */
    recordMarketplacePayment: (tx: TenantTx, order: OrderRow, reference: string) => recordMarketplacePayment(tx, order, reference, order.total),

    async walletCheckout(
      tenant: TenantRef,
      input: CreateOrderInput & { cardToken: string; customerEmail: string; installments?: number; paymentMethodId?: string },
      idempotencyKey: string | undefined,
      claim?: ClaimKey,
    ) {
      const accessToken = await tenants.secret(tenant.id, 'walletAccessToken');
      if (!accessToken) throw new InvalidRequest('Online payment is not configured for this restaurant', 'wallet_not_configured');
      // The whole order is checked and priced before any charge: an order that would be refused costs nothing.
      const orderInput = { ...input, paymentMethod: 'card' as const };
      const { total } = await orders.check(tenant, null, orderInput);
      let charge;
      try {
        charge = await integrations.wallet.client.charge({
          accessToken,
          cardToken: input.cardToken,
          amountCents: total,
          description: `${tenant.name}: pedido online`,
          payer: { email: input.customerEmail, firstName: input.customerName },
          idempotencyKey: idempotencyKey ?? randomBytes(16).toString('hex'),
          installments: input.installments,
          paymentMethodId: input.paymentMethodId,
        });
      } catch (err) {
        if (isIntegrationError(err)) throw providerFailure(err, 'Card payment');
        throw err;
      }
      if (charge.status !== 'approved') {
        throw new Declined(`Payment declined: ${charge.statusDetail}`, 'payment_declined', 'cardToken', charge.statusDetail);
      }
      let order: OrderRow;
      try {
        order = await orders.insert(tenant, null, orderInput, {
          source: 'wallet',
          onInsert: (tx, row) => recordWalletCharge(tx, row, charge.id, total),
          claim,
        });
      } catch (err) {
        // The same key was committed by a twin request: the gateway charged once (same idempotency key) and that charge is its order's.
        if (isKeyTaken(err)) throw err;
        // Charged, but no order (the menu changed in between, the database failed): the money goes back now, or by a job.
        await walletRefund({ tenantId: tenant.id, chargeId: charge.id, amountCents: total }).catch(async (refundErr: unknown) => {
          log.error({ err: refundErr, chargeId: charge.id }, 'wallet refund after a failed checkout: queued');
          await jobs.send(paymentJobs.walletRefund, { tenantId: tenant.id, chargeId: charge.id, amountCents: total }, { singletonKey: charge.id });
        });
        throw err;
      }
      return orders.checkoutView(tenant, order);
    },

    /**
     * What `processPayment` answers for payment `paymentId`, as it is now (an idempotent retry whose first answer was
     * lost with its process): approved, or still processing (declined and cancelled say so in `message`).
     */
    async paymentAnswer(ctx: TenantCtx, orderId: string, paymentId: string) {
      const { payment, order } = await ctx.db.run(async (tx) => ({
        payment: (await q.paymentsOfOrder(tx.db, tx.tenantId, orderId)).find((p) => p.id === paymentId),
        order: await orders.findVisible(tx, ctx, orderId),
      }));
      if (!payment) throw new NotFound('Payment');
      if (payment.status === 'approved') return { status: 'approved' as const, transactionId: payment.transactionId ?? '', ...outcomeOf(payment, order) };
      return {
        status: 'processing' as const,
        intentId: payment.intentId ?? '',
        message: `Payment ${payment.status} (attempt ${payment.attempt} of ${order.orderNumber})`,
        ...(order.pixPayload && payment.gateway === 'pix_psp' ? { pixPayload: order.pixPayload } : {}),
        ...outcomeOf(payment, order),
      };
    },

    /** What `walletCheckout` answered for order `id`, as it is now (a retry whose first answer was lost). */
    checkoutView: (tenant: TenantRef, id: string) => orders.createdView(tenant, null, id),

    /** The payments of an order (its ledger), oldest first. */
    async ofOrder(ctx: TenantCtx, orderId: string): Promise<PaymentRow[]> {
      return ctx.db.run(async (tx) => {
        await orders.findVisible(tx, ctx, orderId);
        return q.paymentsOfOrder(tx.db, tx.tenantId, orderId);
      });
    },

    /** Lists the account's devices with the token; checks `deviceId` belongs to it when given. */
    async testWalletCredentials(accessToken: string, deviceId?: string) {
      let devices;
      try {
        devices = await integrations.wallet.client.listDevices(accessToken);
      } catch (err) {
        if (isRefused(err)) throw new Rejected('The wallet gateway rejected these credentials', 'invalid_credentials');
        if (isIntegrationError(err)) throw providerFailure(err, 'Credential check');
        throw err;
      }
      const device = deviceId ? devices.find((d) => d.id === deviceId) : devices[0];
      if (deviceId && !device) throw new Rejected(`Device ${deviceId} does not belong to this account`, 'device_not_found');
      return { success: true as const, deviceCount: devices.length, device: device ?? null };
    },

    /** GET /t/:slug/receipts/:token: valid for 10 minutes after the bill is paid in full. */
    async receipt(t: TenantDb, token: string) {
      const order = await orders.findByReceipt(t, token);
      if (!order || !order.receiptExpiresAt || order.receiptExpiresAt.getTime() <= clock.now().getTime()) {
        throw new NotFound('Receipt', 'Receipt not found or expired');
      }
      const tenant = await tenants.findById(t.tenantId);
      const paid = (await t.run((tx) => q.paymentsOfOrder(tx.db, tx.tenantId, order.id))).filter((p) => p.status === 'approved' && !p.refundRequestedAt);
      return {
        tenant: { name: tenant?.name ?? '', cnpj: tenant?.cnpj ?? null },
        orderNumber: order.orderNumber,
        items: order.items.map((l) => ({
          name: l.name,
          quantity: billedQuantity(l),
          unit: l.unit ?? 'un',
          price: l.price,
          amount: l.amount ?? l.price * l.quantity,
          discountAmount: l.discountAmount ?? 0,
        })),
        ...toBillView(order, true),
        total: order.total,
        payments: paid.map((p) => ({
          method: p.method,
          amount: p.amount,
          tip: p.tip,
          tendered: p.tendered,
          change: p.tendered === null ? 0 : p.tendered - p.amount,
          paidAt: p.settledAt?.toISOString() ?? null,
        })),
        tipTotal: paid.reduce((sum, p) => sum + p.tip, 0),
        paymentMethod: order.paymentMethod,
        paymentGateway: order.paymentGateway,
        paymentTransactionId: order.paymentTransactionId,
        paidAt: order.paidAt?.toISOString() ?? null,
        expiresAt: order.receiptExpiresAt.toISOString(),
      };
    },
  };
}

export type PaymentsService = ReturnType<typeof paymentsService>;
