import { randomBytes } from 'node:crypto';
import { isId } from '../../db/ids.js';
import type { Db } from '../../db/client.js';
import type { OrderRow, PaymentMethod } from '../../db/schema/orders.js';
import { isIntegrationError, isRefused, type IntegrationError } from '../../integrations/errors.js';
import { checkGatewayASignature, parseGatewayAWebhook, TERMINAL_SERIAL } from '../../integrations/gateway-a/index.js';
import type { Integrations } from '../../integrations/registry.js';
import type { TenantCtx } from '../../platform/auth/guards.js';
import type { Deps } from '../../platform/deps.js';
import { Conflict, Declined, Invalid, InvalidRequest, NotFound, Rejected, Unauthenticated, Unavailable } from '../../platform/domain-errors.js';
import type { TenantRef } from '../../platform/tenancy.js';
import type { BranchesService } from '../branches/index.js';
import type { TenantsService } from '../tenants/index.js';
import * as q from './orders.queries.js';
import { paymentJobs, type PaymentExpiryJob } from './payments.jobs.js';
import type { CreateOrderInput } from './orders.schemas.js';
import { toTrackedPayment, type OrdersService } from './orders.service.js';
import { totalOf } from './orders.rules.js';

/** How long a terminal payment may stay `processing` before the service cancels it (spec 8). */
export const PAYMENT_TIMEOUT_MS = 60_000;
export const RECEIPT_TTL_MS = 10 * 60_000;
/** Queue names of the payment jobs (declared in `payments.jobs.ts`). */
export const PAYMENT_EXPIRY_JOB = paymentJobs.expire.name;
export const PAYMENT_SWEEP_JOB = paymentJobs.sweep.name;

export interface ProcessPaymentInput {
  method: PaymentMethod;
  gateway: 'mock' | 'gateway_a';
  gatewayATerminalSerial?: string;
}

const newReceiptToken = () => randomBytes(16).toString('hex');

function providerFailure(err: IntegrationError, what: string): Rejected | Unavailable {
  if (isRefused(err)) return new Rejected(`${what} refused by the payment provider: ${err.message}`, 'provider_refused');
  return new Unavailable(`${what}: the payment provider is unavailable, try again`, 'provider_unavailable');
}

export function paymentsService(
  deps: Deps,
  { orders, integrations, tenants, branches }: { orders: OrdersService; integrations: Integrations; tenants: TenantsService; branches: BranchesService },
) {
  const { db, clock, realtime, jobs, log } = deps;

  const paidFields = (transactionId: string | null) => {
    const now = clock.now();
    return {
      paymentStatus: 'approved' as const,
      paymentTransactionId: transactionId,
      paidAt: now,
      receiptToken: newReceiptToken(),
      receiptExpiresAt: new Date(now.getTime() + RECEIPT_TTL_MS),
    };
  };

  /** Staff see the payment ids in the kitchen; the tracking room gets the public status only (guest orders). */
  async function announcePayment(order: OrderRow) {
    const payload = {
      orderId: order.id,
      orderNumber: order.orderNumber,
      paymentStatus: order.paymentStatus,
      paymentGateway: order.paymentGateway,
      transactionId: order.paymentTransactionId,
      intentId: order.paymentIntentId,
      total: order.total,
    };
    await orders.toKitchen(order, 'paymentUpdate', payload);
    const tracked = toTrackedPayment(order);
    if (tracked) realtime.toOrder(order.tenantId, order.orderNumber, 'paymentUpdate', tracked);
  }

  function assertPayable(order: OrderRow) {
    if (order.status === 'cancelled') throw new Conflict(`Order ${order.orderNumber} is cancelled`, 'order_closed');
    if (order.paymentStatus === 'approved') throw new Conflict(`Order ${order.orderNumber} is already paid`, 'already_paid');
    if (order.paymentStatus === 'processing') throw new Conflict(`A payment of order ${order.orderNumber} is already in progress`, 'payment_in_progress');
  }

  /** Applies a final gateway result once: a payment no longer `processing` is left as it is. */
  async function settle(tx: Db, order: OrderRow, outcome: 'approved' | 'declined', transactionId: string | null) {
    if (order.paymentStatus !== 'processing') return null;
    return q.updateOrder(
      tx,
      order.tenantId,
      order.id,
      outcome === 'approved' ? paidFields(transactionId) : { paymentStatus: 'declined', paymentTransactionId: transactionId },
    );
  }

  /** The `paymentJobs.expire` handler: cancels an overdue terminal payment, or takes the result the terminal reached. */
  async function expire(job: PaymentExpiryJob) {
    const current = await q.findByIdAnyTenant(db, job.orderId);
    if (!current || current.paymentStatus !== 'processing' || current.paymentAttempts !== job.attempt) return 'not processing';
    // The queue runs this job by the database clock; allow it a little skew against ours.
    if (clock.now().getTime() - (current.paymentStartedAt?.getTime() ?? 0) < PAYMENT_TIMEOUT_MS - 2_000) {
      throw new Error('payment timeout not reached yet: retried later');
    }
    let outcome: 'approved' | 'declined' = 'declined';
    let transactionId: string | null = null;
    try {
      await integrations.gatewayA.client!.cancelPaymentIntent(job.terminalSerial, job.intentId);
    } catch (err) {
      if (!(isRefused(err))) throw err; // unavailable: the job is retried
      // The terminal finished the payment before the cancel: take its result.
      const intent = await integrations.gatewayA.client!.getPaymentIntent(job.intentId);
      if (intent.status === 'approved') {
        outcome = 'approved';
        transactionId = intent.paymentId;
      }
    }
    const updated = await db.transaction(async (tx) => {
      const order = await q.findByIdAnyTenant(tx, job.orderId, { lock: true });
      return order && order.paymentAttempts === job.attempt ? settle(tx, order, outcome, transactionId) : null;
    });
    if (updated) await announcePayment(updated);
    return outcome;
  }

  /** The `paymentJobs.sweep` handler, a safety net for an expiry job lost with a crashed process: expires what is overdue. */
  async function sweep() {
    const stale = await q.staleProcessingPayments(db, new Date(clock.now().getTime() - PAYMENT_TIMEOUT_MS));
    for (const s of stale) {
      const order = await q.findByIdAnyTenant(db, s.id);
      if (!order?.paymentIntentId || order.paymentGateway !== 'gateway_a' || !order.paymentTerminalSerial) continue;
      await expire({
        tenantId: order.tenantId,
        orderId: order.id,
        attempt: order.paymentAttempts,
        terminalSerial: order.paymentTerminalSerial,
        intentId: order.paymentIntentId,
      });
    }
    return stale.length;
  }

  return {
    expire,
    sweep,

    /**
     * Charges an order. `mock` (or gateway_a not configured) approves at once, for a cashier who
     * confirms cash or a standalone card machine; `gateway_a` sends an intent to the PDV's card
     * terminal and answers `processing`: the result arrives by webhook.
     */
    async processPayment(ctx: TenantCtx, id: string, input: ProcessPaymentInput) {
      if (input.gateway === 'gateway_a' && integrations.gatewayA.client) {
        const claimed = await db.transaction(async (tx) => {
          const order = await orders.loadForUpdate(ctx, id, tx, true);
          assertPayable(order);
          if (order.total <= 0) throw new InvalidRequest('Order total is zero: nothing to charge');
          const pdv = order.pdvId ? await branches.findPdv(ctx.tenantId, order.pdvId, tx) : null;
          const serial = input.gatewayATerminalSerial ?? pdv?.gatewayATerminalSerial ?? null;
          if (!serial) throw new Invalid('gatewayATerminalSerial', 'is required: the order has no PDV with a card terminal');
          if (!TERMINAL_SERIAL.test(serial)) throw new Invalid('gatewayATerminalSerial', 'must look like T-XXXX');
          const updated = await q.updateOrder(tx, ctx.tenantId, id, {
            paymentStatus: 'processing',
            paymentGateway: 'gateway_a',
            paymentMethod: input.method,
            paymentAttempts: order.paymentAttempts + 1,
            paymentStartedAt: clock.now(),
            paymentIntentId: null,
            paymentTransactionId: null,
            paymentTerminalSerial: serial,
          });
          return { order: updated, serial, previous: order.paymentStatus };
        });
        const { order, serial } = claimed;
        let intentId: string;
        try {
          ({ intentId } = await integrations.gatewayA.client.createPaymentIntent({
            terminalSerial: serial,
            amountCents: order.total,
            externalId: order.id,
            description: `Pedido ${order.orderNumber}`,
          }));
        } catch (err) {
          // Nothing reached the terminal: give the order back its previous payment state.
          await q.updateOrder(db, ctx.tenantId, id, { paymentStatus: claimed.previous, paymentStartedAt: null });
          if (isIntegrationError(err)) throw providerFailure(err, 'Payment intent');
          throw err;
        }
        const updated = await db.transaction(async (tx) => {
          const o = await q.updateOrder(tx, ctx.tenantId, id, { paymentIntentId: intentId });
          await jobs.send(
            paymentJobs.expire,
            { tenantId: ctx.tenantId, orderId: id, attempt: order.paymentAttempts, terminalSerial: serial, intentId },
            { startAfter: PAYMENT_TIMEOUT_MS / 1000, singletonKey: `${id}:${order.paymentAttempts}`, tx },
          );
          return o;
        });
        await announcePayment(updated);
        return { status: 'processing' as const, intentId, message: `Payment of ${order.orderNumber} sent to terminal ${serial}; waiting for the card` };
      }
      const transactionId = `mock-${randomBytes(8).toString('hex')}`;
      const updated = await db.transaction(async (tx) => {
        const order = await orders.loadForUpdate(ctx, id, tx, true);
        assertPayable(order);
        return q.updateOrder(tx, ctx.tenantId, id, {
          paymentGateway: 'mock',
          paymentMethod: input.method,
          paymentAttempts: order.paymentAttempts + 1,
          paymentStartedAt: clock.now(),
          ...paidFields(transactionId),
        });
      });
      await announcePayment(updated);
      return { status: 'approved' as const, transactionId };
    },

    /**
     * POST /api/gateway-a/webhook: the signature is checked on the raw bytes; a repeated or late
     * webhook (payment no longer processing, or of an older attempt) changes nothing.
     */
    async gatewayWebhook(rawBody: Buffer, signature: string | string[] | undefined) {
      const check = checkGatewayASignature(rawBody, signature, integrations.gatewayA.webhookSecret);
      if (!check.valid) {
        if (check.reason !== 'missing_secret') throw new Unauthenticated('Invalid webhook signature', 'invalid_signature');
        log.warn('gateway_a webhook accepted without a signature check: no webhook secret is configured');
      }
      let body: unknown;
      try {
        body = JSON.parse(rawBody.toString('utf8'));
      } catch {
        throw new InvalidRequest('Body is not valid JSON');
      }
      const event = parseGatewayAWebhook(body);
      if (!event) throw new InvalidRequest('Unrecognised webhook body');
      if (!event.outcome) return { received: true };
      const updated = await db.transaction(async (tx) => {
        const byRef = event.externalId && isId(event.externalId) ? await q.findByIdAnyTenant(tx, event.externalId, { lock: true }) : null;
        const order = byRef ?? (event.intentId ? await q.findByPaymentIntent(tx, event.intentId, { lock: true }) : null);
        if (!order) {
          log.warn({ intentId: event.intentId, externalId: event.externalId }, 'gateway_a webhook for an unknown payment');
          return null;
        }
        if (order.paymentIntentId && event.intentId && order.paymentIntentId !== event.intentId) return null;
        return settle(tx, order, event.outcome!, event.transactionId);
      });
      if (updated) await announcePayment(updated);
      return { received: true };
    },

    /** Online wallet checkout: charge first; an order exists only for an approved payment. */
    async walletCheckout(
      tenant: TenantRef,
      input: CreateOrderInput & { cardToken: string; customerEmail: string; installments?: number; paymentMethodId?: string },
      idempotencyKey: string | undefined,
    ) {
      const accessToken = await tenants.secret(tenant.id, 'walletAccessToken');
      if (!accessToken) throw new InvalidRequest('Online payment is not configured for this restaurant', 'wallet_not_configured');
      const lines = await orders.priceLines(tenant.id, input.items);
      const total = totalOf(lines);
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
      const order = await orders.insert(tenant, null, { ...input, paymentMethod: 'card' }, {
        source: 'wallet',
        paymentGateway: 'wallet',
        paymentAttempts: 1,
        paymentStartedAt: clock.now(),
        ...paidFields(charge.id),
      });
      return orders.checkoutView(tenant, order);
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

    /** GET /t/:slug/receipts/:token: valid for 10 minutes after payment. */
    async receipt(tenantId: string, token: string) {
      const order = await q.findByReceiptToken(db, tenantId, token);
      if (!order || !order.receiptExpiresAt || order.receiptExpiresAt.getTime() <= clock.now().getTime()) {
        throw new NotFound('Receipt', 'Receipt not found or expired');
      }
      const tenant = await tenants.findById(tenantId);
      return {
        tenant: { name: tenant?.name ?? '', cnpj: tenant?.cnpj ?? null },
        orderNumber: order.orderNumber,
        items: order.items.map((l) => ({ name: l.name, quantity: l.quantity, price: l.price })),
        total: order.total,
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
