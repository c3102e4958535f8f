/**
 * The simulated terminals' payment intents: created on a device, cancelled, and decided by a
 * person or a test (`manual`) or by the simulator itself after a delay (`approve` / `decline`).
 * Every decision and cancellation is reported by webhook.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../../platform/clock.js';
import type { ProviderLogger } from '../../http.js';
import type { RefundablePayment } from '../../simulator/refunds.js';
import type { GatewayAWebhookShape } from '../webhook.js';
import { PENDING, SimulatorError, viewIntent, type SimIntent, type SimIntentView, type SimOutcomeMode, type TerminalRegistry } from './state.js';
import type { WebhookDelivery, WebhookSender } from './webhooks.js';

export interface DecideOptions {
  shape?: GatewayAWebhookShape;
  /** Approve: card type shown on the payment. */
  paymentType?: string;
  /** Decline: reason recorded on the intent. */
  reason?: string;
  /**
   * Decide an intent that was already cancelled: the race where the card went through on the terminal
   * as the service's cancel arrived (the gateway then reports a payment for an intent it was told to drop).
   */
  afterCancel?: boolean;
}

export interface IntentBookOptions {
  clock: Clock;
  log: ProviderLogger;
  terminals: TerminalRegistry;
  webhooks: WebhookSender;
  outcome: SimOutcomeMode;
  outcomeDelayMs: number;
}

export function intentBook({ clock, log, terminals, webhooks, ...initial }: IntentBookOptions) {
  const intents = new Map<string, SimIntent>();
  const decisionTimers = new Map<string, NodeJS.Timeout>();
  let nextPaymentId = 70_000_000_000 + Math.floor(Math.random() * 1_000_000);
  let outcome = initial.outcome;
  let outcomeDelayMs = initial.outcomeDelayMs;
  let closed = false;

  function find(id: string): SimIntent {
    const intent = intents.get(id);
    if (!intent) throw new SimulatorError(404, 'not_found', `payment intent ${id} not found`);
    return intent;
  }

  function clearDecision(id: string) {
    const t = decisionTimers.get(id);
    if (t) clearTimeout(t);
    decisionTimers.delete(id);
  }

  async function decide(id: string, result: 'approved' | 'rejected', opts: DecideOptions = {}) {
    const intent = find(id);
    if (!PENDING.has(intent.state) && !(opts.afterCancel && intent.state === 'CANCELED')) {
      throw new SimulatorError(409, 'not_pending', `payment intent ${id} is ${intent.state}; only an open intent can be decided`);
    }
    clearDecision(id);
    intent.state = 'FINISHED';
    intent.payment = { id: nextPaymentId++, state: result, type: opts.paymentType ?? 'credit_card' };
    intent.declineReason = result === 'rejected' ? (opts.reason ?? 'cc_rejected_other_reason') : null;
    intent.updatedAt = clock.now();
    log.info({ intentId: id, result }, 'gateway_a simulator: intent decided');
    const d = await webhooks.notify(intent, opts.shape);
    return { intent: viewIntent(intent), webhook: d as WebhookDelivery | null };
  }

  function scheduleDecision(intent: SimIntent) {
    if (outcome === 'manual') return;
    const result = outcome === 'approve' ? 'approved' : 'rejected';
    const t = setTimeout(() => {
      decisionTimers.delete(intent.id);
      if (closed || !PENDING.has(intent.state)) return;
      decide(intent.id, result).catch((err) => log.warn({ err: (err as Error).message }, 'gateway_a simulator: automatic decision failed'));
    }, outcomeDelayMs);
    t.unref?.();
    decisionTimers.set(intent.id, t);
  }

  function create(deviceId: string, body: Record<string, unknown>, sandbox: boolean): SimIntent {
    if (!terminals.known(deviceId)) throw new SimulatorError(404, 'device_not_found', `device ${deviceId} not found`);
    const amount = body.amount;
    if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount < 1) {
      throw new SimulatorError(400, 'bad_request', 'amount must be a positive integer (cents)');
    }
    const info = (body.additional_info && typeof body.additional_info === 'object' ? body.additional_info : {}) as Record<string, unknown>;
    const ref = info.external_reference;
    if (ref !== undefined && (typeof ref !== 'string' || ref.length > 256)) {
      throw new SimulatorError(400, 'bad_request', 'additional_info.external_reference must be a string of at most 256 characters');
    }
    if (body.description !== undefined && typeof body.description !== 'string') {
      throw new SimulatorError(400, 'bad_request', 'description must be a string');
    }
    for (const other of intents.values()) {
      if (other.deviceId === deviceId && PENDING.has(other.state)) {
        throw new SimulatorError(409, 'terminal_busy', `device ${deviceId} has a queued payment intent (${other.id})`);
      }
    }
    const now = clock.now();
    const intent: SimIntent = {
      id: randomUUID(),
      deviceId,
      amount,
      description: typeof body.description === 'string' ? body.description : null,
      externalReference: typeof ref === 'string' ? ref : null,
      printOnTerminal: info.print_on_terminal !== false,
      state: 'OPEN',
      payment: null,
      declineReason: null,
      sandbox,
      createdAt: now,
      updatedAt: now,
      lastShape: null,
    };
    intents.set(intent.id, intent);
    log.info({ intentId: intent.id, deviceId, amount, sandbox }, 'gateway_a simulator: intent created');
    scheduleDecision(intent);
    return intent;
  }

  async function cancel(deviceId: string, id: string): Promise<SimIntent> {
    const intent = intents.get(id);
    if (!intent || intent.deviceId !== deviceId) throw new SimulatorError(404, 'not_found', `payment intent ${id} not found on device ${deviceId}`);
    if (intent.state === 'CANCELED') return intent; // cancelling twice is harmless
    if (!PENDING.has(intent.state)) {
      throw new SimulatorError(409, 'not_cancelable', `payment intent ${id} is ${intent.state} and can no longer be cancelled`);
    }
    clearDecision(id);
    intent.state = 'CANCELED';
    intent.updatedAt = clock.now();
    // Real gateways notify every state change; a cancelled intent is reported as declined.
    await webhooks.notify(intent);
    return intent;
  }

  /** The payment a terminal made for an intent (approved or rejected), as refunds see it. */
  const paymentOf = (i: SimIntent): RefundablePayment | undefined =>
    i.payment ? { id: String(i.payment.id), amountCents: i.amount, approved: i.payment.state === 'approved' } : undefined;

  return {
    find,
    create,
    cancel,
    approve: (id: string, opts?: DecideOptions) => decide(id, 'approved', opts),
    decline: (id: string, opts?: DecideOptions) => decide(id, 'rejected', opts),
    /** Sends the webhook of a decided intent again (a duplicate, as real gateways do). */
    async resend(id: string, opts: { shape?: GatewayAWebhookShape } = {}): Promise<WebhookDelivery | null> {
      const intent = find(id);
      if (PENDING.has(intent.state)) throw new SimulatorError(409, 'not_decided', `payment intent ${id} has no result yet`);
      return webhooks.notify(intent, opts.shape ?? intent.lastShape ?? undefined);
    },
    get(id: string): SimIntentView | undefined {
      const i = intents.get(id);
      return i && viewIntent(i);
    },
    /** The payment with this id (the `paymentId` of a decided intent), if any. */
    payment(paymentId: string): RefundablePayment | undefined {
      for (const i of intents.values()) if (i.payment && String(i.payment.id) === paymentId) return paymentOf(i);
      return undefined;
    },
    /** Every payment made at the terminals, approved or not. */
    payments: (): RefundablePayment[] => [...intents.values()].flatMap((i) => paymentOf(i) ?? []),
    /** Oldest first. */
    list: (): SimIntentView[] => [...intents.values()].map(viewIntent),
    get size() {
      return intents.size;
    },
    get outcome() {
      return { outcome, outcomeDelayMs };
    },
    setOutcome(mode: SimOutcomeMode, delayMs?: number) {
      outcome = mode;
      if (delayMs !== undefined) outcomeDelayMs = delayMs;
    },
    /** Stops the automatic decisions. */
    close() {
      closed = true;
      for (const t of decisionTimers.values()) clearTimeout(t);
      decisionTimers.clear();
    },
  };
}
export type IntentBook = ReturnType<typeof intentBook>;
