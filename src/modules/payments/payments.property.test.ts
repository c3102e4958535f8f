import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { WALLET_SIM_ACCOUNT, WALLET_TEST_CARDS } from '../../integrations/wallet/index.js';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeCategory, makeMenuItem, makePdv, makeTenantWithTeam, type TestUser } from '../../../test/factories.js';
import { paymentJobs } from './payments.jobs.js';
import { Rng } from '../../../test/rng.js';

/**
 * The payment ledger under random sequences (issue 10). Each sequence creates an order, then runs 3 to 8
 * steps in all among: create (staff, or a wallet checkout), add items, pay with mock (all, part, above
 * what is due), pay at the card terminal, approve / decline at the terminal, expire (61 s later), split
 * (equal parts or by lines), cancel, drain the refunds, a late approval of an expired intent, a duplicate
 * webhook, a discount or the service charge declined (dine-in bills carry 10%), and two of these at
 * once. Every answer must be one the step may give (never a 5xx). Then
 * nothing is left in flight, the refund jobs are drained, and:
 * 1. what the card gateway holds (its simulator's `captured()`) moved by exactly the sequence's approved
 *    card-terminal payments (amount + tip) minus the refunded ones; the same for the wallet;
 * 2. an order is `approved` exactly when its amount due is zero;
 * 3. a split's parts add up to the parent, total, items, discounts and service charge each;
 * 4. no cancelled order keeps money: nothing approved left, each payment a gateway took refunded there;
 * with the ledger's own consistency (amountPaid = the approved payments, never above the total; every
 * payment answered is in the ledger as answered; each payment agrees with its intent at the gateway).
 *
 * A failure prints the failing sequence's seed and steps. Replay it with
 *   PAYMENTS_PROPERTY_SEED=<seed> PAYMENTS_PROPERTY_RUNS=1 npx vitest run src/modules/payments/payments.property.test.ts
 * (the same random draws; two steps run at once may interleave differently). PAYMENTS_PROPERTY_RUNS sets
 * the number of sequences (default 300); PAYMENTS_PROPERTY_VERBOSE=1 prints every sequence's steps.
 */

const RUNS = Number(process.env.PAYMENTS_PROPERTY_RUNS ?? 300);
const SEED_ENV = process.env.PAYMENTS_PROPERTY_SEED;
const BASE_SEED = SEED_ENV !== undefined ? Number(SEED_ENV) >>> 0 : (Date.now() ^ (Math.random() * 2 ** 32)) >>> 0;
/** Prints every sequence's steps (to see what the generator does). */
const VERBOSE = Boolean(process.env.PAYMENTS_PROPERTY_VERBOSE);

// ---- what the API answers

interface OrderView {
  _id: string;
  orderNumber: string;
  items: { menuItem: string | null; name: string; price: number; quantity: number; amount?: number }[];
  status: string;
  itemsTotal: number;
  discountTotal: number;
  serviceCharge: number;
  coverCharge: number;
  total: number;
  amountPaid: number;
  amountDue: number;
  isSplit: boolean;
  isSplitBill?: boolean;
  splitBillReference?: string | null;
  paymentStatus: string | null;
  paymentAttempts: number;
}

interface LedgerRow {
  _id: string;
  attempt: number;
  gateway: 'mock' | 'gateway_a' | 'wallet';
  method: string;
  amount: number;
  tip: number;
  change: number;
  status: 'processing' | 'approved' | 'declined' | 'cancelled' | 'refunded';
  intentId: string | null;
  transactionId: string | null;
  refundRequestedAt: string | null;
  refundReason: string | null;
  refundId: string | null;
}

/** Thrown for a broken property; the sequence's seed and step log are added to the message. */
class PropertyFailure extends Error {}

// ---- the shared world: one app, one tenant, a few dishes, two PDVs with a card terminal each

let t: TestApp;
let slug: string;
let admin: TestUser;
let staff: TestUser;
let dishes: { id: string; price: number }[];
let pdvs: { pdvId: string; slug: string; terminal: string }[];
const badDeliveries: string[] = [];
let walletAddress = 0;

beforeAll(async () => {
  t = await createTestApp();
  const team = await makeTenantWithTeam(t.app);
  ({ slug, admin, staff } = team);
  const category = (await makeCategory(t.app, team.tenant))._id;
  dishes = [];
  for (const [name, price] of [['Moqueca', 7450], ['Pudim', 1599], ['Caipirinha', 2333], ['Pão de queijo', 899]] as const) {
    dishes.push({ id: (await makeMenuItem(t.app, team.tenant, { name, price, category }))._id, price });
  }
  pdvs = [];
  for (const n of [1, 2]) {
    const terminal = `T-${slug.slice(2).toUpperCase()}-${n}`;
    pdvs.push({ ...(await makePdv(t.app, team.tenant, { terminal })), terminal });
  }
  const assign = await t.app.inject({ method: 'PUT', url: `/t/${slug}/users/${staff.id}`, headers: admin.headers, payload: { assignedPdvIds: pdvs.map((p) => p.pdvId) } });
  expect(assign.statusCode, assign.body).toBe(200);
  const wallet = await t.app.inject({
    method: 'PUT',
    url: `/t/${slug}/tenants`,
    headers: admin.headers,
    // The usual 10% service charge on dine-in bills.
    payload: { walletAccessToken: WALLET_SIM_ACCOUNT.accessToken, walletPublicKey: WALLET_SIM_ACCOUNT.publicKey, serviceChargePercent: 10 },
  });
  expect(wallet.statusCode, wallet.body).toBe(200);
  // Every webhook the card gateway sends (approvals, refusals, cancellations) must be taken by the service.
  t.app.integrations.gatewayA.simulator!.onDelivery((d) => {
    if (d.status === null || d.status < 200 || d.status > 299) badDeliveries.push(`webhook ${d.outcome} of intent ${d.intentId}: ${d.status} ${d.error ?? ''}`);
  });
}, 120_000);
afterAll(() => t?.close());

// ---- one sequence

interface Tracked {
  id: string;
  label: string;
  /** The highest total seen in an answer (a total only grows, and nothing more than it is ever due). */
  total: number;
  /** An estimate of what is due, from the answers (partial payments take part of it). */
  due: number;
  /** Quantities of its lines, as last seen. */
  units: number[];
  cancelled: boolean;
  /** A parent that was split. */
  split: boolean;
  /** Set on a part: its parent's id. */
  parentId: string | null;
  parts: string[];
  /** Some payment of it was approved (to steer the generator towards cancelling orders with money taken). */
  paid: boolean;
}

interface Intent {
  intentId: string;
  paymentId: string;
  orderId: string;
}

type Kind =
  | 'create'
  | 'walletCreate'
  | 'addItems'
  | 'payMock'
  | 'payGateway'
  | 'approve'
  | 'decline'
  | 'expire'
  | 'split'
  | 'cancel'
  | 'drainRefunds'
  | 'lateApprove'
  | 'resend'
  | 'discount';

interface Step {
  label: string;
  run: () => Promise<string>;
  /** The order it acts on, if one. */
  order?: Tracked;
}

const PAYMENT_409 = ['payment_in_progress', 'already_paid', 'order_split', 'order_closed'];
/** Why a bill edit (discount, service charge) may be refused. */
const BILL_409 = ['payment_in_progress', 'order_split', 'split_part', 'order_closed', 'would_overpay'];
const OPEN_INTENT = new Set(['OPEN', 'ON_TERMINAL', 'PROCESSING']);

class Sequence {
  readonly log: string[] = [];
  readonly orders = new Map<string, Tracked>();
  readonly intents: Intent[] = [];
  /** Payments the API answered with (id -> amount, tip, gateway). */
  readonly answered = new Map<string, { amount: number; tip: number; gateway: string }>();
  private labels = 0;
  /** Set while planning two steps that run at once (what one of them saw may change under it). */
  private pairing = false;

  constructor(readonly rng: Rng) {}

  get sim() {
    return t.app.integrations.gatewayA.simulator!;
  }

  fail(message: string): never {
    throw new PropertyFailure(message);
  }

  // -- HTTP, with the answers a step may give

  async call(
    what: string,
    method: 'GET' | 'POST' | 'PUT' | 'PATCH',
    url: string,
    user: TestUser | null,
    payload: object | undefined,
    allowed: Partial<Record<number, string[] | true>>,
    remoteAddress?: string,
  ): Promise<LightMyRequestResponse> {
    const res = await t.app.inject({ method, url, headers: user?.headers ?? {}, payload: payload as never, ...(remoteAddress ? { remoteAddress } : {}) });
    const rule = allowed[res.statusCode];
    if (!rule) this.fail(`${what}: unexpected ${res.statusCode} ${res.body}`);
    if (Array.isArray(rule)) {
      const code = (res.json() as { code?: string }).code ?? '';
      if (!rule.includes(code)) this.fail(`${what}: ${res.statusCode} with unexpected code ${code}: ${res.body}`);
    }
    return res;
  }

  brief(res: LightMyRequestResponse) {
    if (res.statusCode >= 300) return `${res.statusCode} ${(res.json() as { code?: string }).code ?? ''}`;
    return `${res.statusCode}`;
  }

  track(view: OrderView, parentId: string | null = null): Tracked {
    const parent = parentId ? this.orders.get(parentId) : undefined;
    const label = parent ? `${parent.label}.p${parent.parts.length + 1}` : `o${++this.labels}`;
    const o: Tracked = {
      id: view._id,
      label,
      total: view.total,
      due: view.amountDue,
      units: view.items.map((l) => l.quantity),
      cancelled: false,
      split: false,
      parentId,
      parts: [],
      paid: view.amountPaid > 0,
    };
    this.orders.set(o.id, o);
    if (parent) parent.parts.push(o.id);
    return o;
  }

  lines() {
    return Array.from({ length: this.rng.int(1, 3) }, () => {
      const d = this.rng.pick(dishes);
      return { dish: d, quantity: this.rng.int(1, 3) };
    });
  }

  /** A target order: mostly one still open for business, sometimes any (cancelled, split...). */
  target(): Tracked {
    const all = [...this.orders.values()];
    const live = all.filter((o) => !o.cancelled && !o.split);
    return this.rng.chance(0.8) && live.length ? this.rng.pick(live) : this.rng.pick(all);
  }

  user() {
    return this.rng.chance(0.5) ? staff : admin;
  }

  openIntents() {
    return this.intents.filter((i) => OPEN_INTENT.has(this.sim.getIntent(i.intentId)?.state ?? ''));
  }

  decidedIntents() {
    return this.intents.filter((i) => !OPEN_INTENT.has(this.sim.getIntent(i.intentId)?.state ?? 'OPEN'));
  }

  cancelledIntents() {
    return this.intents.filter((i) => this.sim.getIntent(i.intentId)?.state === 'CANCELED');
  }

  // -- the steps: every random choice is drawn when planned, before anything runs

  plan(kind: Kind, on?: Tracked): Step {
    const pickOrder = () => on ?? this.target();
    switch (kind) {
      case 'create': {
        const lines = this.lines();
        const pdv = this.rng.pick(pdvs);
        const user = this.user();
        const orderType = this.rng.chance(0.5) ? 'dine_in' : 'takeout';
        const consumed = lines.reduce((s, l) => s + l.dish.price * l.quantity, 0);
        // The tenant's 10% service charge on dine-in, rounded half up.
        const expected = consumed + (orderType === 'dine_in' ? Math.floor((consumed + 5) / 10) : 0);
        return {
          label: `create ${orderType} ${lines.map((l) => `${l.quantity}x${l.dish.price}`).join('+')} on ${pdv.terminal}`,
          run: async () => {
            const res = await this.call('create', 'POST', `/t/${slug}/orders`, user, {
              orderType,
              pdv: pdv.pdvId,
              items: lines.map((l) => ({ menuItem: l.dish.id, quantity: l.quantity })),
            }, { 201: true });
            const view = res.json() as OrderView;
            if (view.total !== expected) this.fail(`create: total ${view.total}, the lines and service make ${expected}`);
            return `-> ${this.track(view).label} total ${view.total}`;
          },
        };
      }
      case 'walletCreate': {
        const lines = this.lines();
        const pdv = this.rng.pick(pdvs);
        return {
          label: `wallet checkout ${lines.map((l) => `${l.quantity}x${l.dish.price}`).join('+')}`,
          run: async () => {
            const n = ++walletAddress;
            const res = await this.call('wallet checkout', 'POST', `/t/${slug}/checkout/wallet-payment`, null, {
              pdv: pdv.slug,
              orderType: 'takeout',
              customerName: 'Carla',
              customerEmail: 'carla@example.com',
              items: lines.map((l) => ({ menuItemId: l.dish.id, quantity: l.quantity })),
              cardToken: WALLET_TEST_CARDS.approved,
            }, { 201: true }, `10.99.${(n >> 8) & 255}.${n & 255}`);
            const view = res.json() as OrderView;
            if (view.paymentStatus !== 'approved' || view.amountDue !== 0) this.fail(`wallet checkout: not paid in full: ${res.body}`);
            return `-> ${this.track(view).label} total ${view.total}, paid`;
          },
        };
      }
      case 'discount': {
        // A discount within the staff limit (or the service charge declined or restored): the bill moves
        // down or up under the ledger, which must follow.
        const o = pickOrder();
        const user = this.user();
        const toggle = this.rng.chance(0.25);
        const body = toggle
          ? { serviceChargeRemoved: this.rng.chance(0.7) }
          : this.rng.chance(0.5)
            ? { kind: 'percent', value: this.rng.int(1, 10), reason: 'cortesia' }
            : { kind: 'amount', value: this.rng.int(1, 300), reason: 'ajuste' };
        return {
          label: `${toggle ? 'service charge' : 'discount'} ${JSON.stringify(body)} on ${o.label}`,
          order: o,
          run: async () => {
            const url = `/t/${slug}/orders/${o.id}/${toggle ? 'bill' : 'discount'}`;
            const allowed: Partial<Record<number, string[] | true>> = { 200: true, 409: BILL_409 };
            // An amount may be above the staff limit (10%) of a small bill; a percentage never is.
            if (user === staff && 'kind' in body && body.kind === 'amount') allowed[403] = ['discount_limit'];
            const res = await this.call(`bill edit of ${o.label}`, 'PUT', url, user, body, allowed);
            if (res.statusCode !== 200) return `-> ${this.brief(res)}`;
            const view = res.json() as OrderView;
            // Replacing a discount by a smaller one, or restoring the service charge, raises the total.
            o.total = Math.max(o.total, view.total);
            o.due = view.amountDue;
            if (view.amountPaid > view.total) this.fail(`bill edit of ${o.label}: paid ${view.amountPaid} above the new total ${view.total}`);
            return `-> 200 total ${view.total} due ${view.amountDue} ${view.paymentStatus}`;
          },
        };
      }
      case 'addItems': {
        const o = pickOrder();
        const lines = this.lines().slice(0, 2);
        const added = lines.reduce((s, l) => s + l.dish.price * l.quantity, 0);
        const user = this.user();
        return {
          label: `add ${added} to ${o.label}`,
          order: o,
          run: async () => {
            const res = await this.call(`add items to ${o.label}`, 'PATCH', `/t/${slug}/orders/${o.id}/add-items`, user, {
              items: lines.map((l) => ({ menuItem: l.dish.id, quantity: l.quantity })),
            }, { 200: true, 409: ['payment_in_progress', 'order_split', 'order_closed', 'split_part'] });
            if (res.statusCode === 200) {
              // A part's amounts are fixed at the split: more items go to a new order.
              if (o.parentId) this.fail(`add items to ${o.label}: a part of a split bill took items`);
              const view = res.json() as OrderView;
              o.total = Math.max(o.total, view.total);
              o.due = view.amountDue;
              o.units = view.items.map((l) => l.quantity);
              return `-> 200 total ${view.total} due ${view.amountDue}`;
            }
            return `-> ${this.brief(res)}`;
          },
        };
      }
      case 'payMock': {
        const o = pickOrder();
        const method = this.rng.pick(['cash', 'cash', 'credit_card', 'debit_card', 'pix', 'voucher'] as const);
        const mode = this.rng.weighted({ all: 35, partial: 45, over: 20 });
        const amount = mode === 'all' ? undefined : mode === 'partial' ? this.rng.int(1, Math.max(1, o.due - 1)) : o.total + this.rng.int(1, 5000);
        const tip = this.rng.chance(0.25) ? this.rng.int(1, 1500) : undefined;
        const user = this.user();
        const cash = method === 'cash';
        const paired = this.pairing;
        return {
          label: `pay ${o.label} mock ${method} ${amount ?? 'all'}${tip ? ` tip ${tip}` : ''}`,
          order: o,
          run: async () => {
            const allowed: Partial<Record<number, string[] | true>> = { 200: true, 409: PAYMENT_409 };
            // A stated amount above what is due now is refused (400), except cash, which gets change.
            if (amount !== undefined && !(cash && mode === 'over')) allowed[400] = true;
            // Above the total seen when planned: refused, unless items were added at the same moment.
            if (mode === 'over' && !cash && !paired) delete allowed[200];
            const res = await this.call(`pay ${o.label}`, 'POST', `/t/${slug}/orders/${o.id}/process-payment`, user, { method, gateway: 'mock', amount, tip }, allowed);
            if (res.statusCode === 400) {
              const field = (res.json() as { details?: { field: string }[] }).details?.[0]?.field;
              if (field !== 'body.amount') this.fail(`pay ${o.label}: 400 on ${field}: ${res.body}`);
            }
            if (res.statusCode !== 200) return `-> ${this.brief(res)}`;
            const r = res.json() as { status: string; paymentId: string; amount: number; tip: number; change: number; amountDue: number };
            if (r.status !== 'approved') this.fail(`pay ${o.label} (mock): status ${r.status}`);
            if (r.tip !== (tip ?? 0)) this.fail(`pay ${o.label}: tip ${r.tip}, asked ${tip ?? 0}`);
            if (amount !== undefined) {
              if (r.amount > amount || (!cash && r.amount !== amount)) this.fail(`pay ${o.label}: took ${r.amount} for a ${method} of ${amount}`);
              if (r.change !== amount - r.amount) this.fail(`pay ${o.label}: change ${r.change} for ${amount} handed over, ${r.amount} taken`);
            } else if (r.change !== 0) this.fail(`pay ${o.label}: change ${r.change} without an amount`);
            this.answered.set(r.paymentId, { amount: r.amount, tip: r.tip, gateway: 'mock' });
            o.due = r.amountDue;
            o.paid = true;
            return `-> 200 took ${r.amount} change ${r.change} due ${r.amountDue}`;
          },
        };
      }
      case 'payGateway': {
        const o = pickOrder();
        const method = this.rng.pick(['credit_card', 'debit_card'] as const);
        const mode = this.rng.weighted({ all: 55, partial: 35, over: 10 });
        const amount = mode === 'all' ? undefined : mode === 'partial' ? this.rng.int(1, Math.max(1, o.due - 1)) : o.total + this.rng.int(1, 5000);
        const tip = this.rng.chance(0.3) ? this.rng.int(1, 1500) : undefined;
        const user = this.user();
        const paired = this.pairing;
        return {
          label: `pay ${o.label} terminal ${method} ${amount ?? 'all'}${tip ? ` tip ${tip}` : ''}`,
          order: o,
          run: async () => {
            // 422: the terminal is busy with another order's intent (the gateway refuses a second one).
            const allowed: Partial<Record<number, string[] | true>> = { 200: true, 409: PAYMENT_409, 422: ['provider_refused'] };
            if (amount !== undefined) allowed[400] = true;
            if (mode === 'over' && !paired) delete allowed[200];
            const res = await this.call(`pay ${o.label} at the terminal`, 'POST', `/t/${slug}/orders/${o.id}/process-payment`, user, {
              method,
              gateway: 'gateway_a',
              amount,
              tip,
            }, allowed);
            if (res.statusCode !== 200) return `-> ${this.brief(res)}`;
            const r = res.json() as { status: string; paymentId: string; intentId: string; amount: number; tip: number; change: number };
            if (r.status !== 'processing') this.fail(`pay ${o.label} at the terminal: status ${r.status}`);
            if ((amount !== undefined && r.amount !== amount) || r.tip !== (tip ?? 0) || r.change !== 0) {
              this.fail(`pay ${o.label} at the terminal: answered ${res.body} for amount ${amount} tip ${tip}`);
            }
            const intent = this.sim.getIntent(r.intentId);
            if (!intent || intent.amount !== r.amount + r.tip) this.fail(`pay ${o.label}: the terminal charges ${intent?.amount}, the payment is ${r.amount} + tip ${r.tip}`);
            this.intents.push({ intentId: r.intentId, paymentId: r.paymentId, orderId: o.id });
            this.answered.set(r.paymentId, { amount: r.amount, tip: r.tip, gateway: 'gateway_a' });
            return `-> 200 processing ${r.amount}+${r.tip} intent ${r.intentId.slice(0, 8)}`;
          },
        };
      }
      case 'approve':
      case 'decline':
      case 'lateApprove': {
        const all = kind === 'lateApprove' ? this.cancelledIntents() : this.openIntents();
        const mine = on ? all.filter((i) => i.orderId === on.id) : all;
        const candidates = mine.length ? mine : all;
        if (!candidates.length) return this.plan(kind === 'lateApprove' && this.openIntents().length ? 'expire' : 'payGateway', on);
        return this.decide(kind, this.rng.pick(candidates));
      }
      case 'resend': {
        const decided = this.decidedIntents();
        if (!decided.length) return this.plan('payGateway', on);
        const i = this.rng.pick(decided);
        const o = this.orders.get(i.orderId)!;
        const what = `resend the webhook of intent ${i.intentId.slice(0, 8)} of ${o.label}`;
        return {
          label: what,
          order: o,
          run: async () => {
            // A duplicate, as real gateways send: it must change nothing.
            const d = await this.sim.resend(i.intentId);
            if (d?.status !== 200) this.fail(`${what}: webhook answered ${d?.status} ${d?.error ?? ''}`);
            return '-> webhook 200';
          },
        };
      }
      case 'expire':
        return {
          label: 'expire (61 s later)',
          run: async () => {
            t.clock.advance(61_000);
            try {
              const r = await t.app.jobs.drain({ names: [paymentJobs.expire.name], includeDelayed: true });
              if (r.failed) this.fail(`expire: ${r.failed} expiry job(s) failed`);
              return `-> ${r.completed} job(s)`;
            } finally {
              t.clock.advance(-61_000);
            }
          },
        };
      case 'drainRefunds':
        return { label: 'drain refunds', run: () => this.drainRefunds() };
      case 'split': {
        const o = pickOrder();
        const units = o.units.reduce((s, n) => s + n, 0);
        const byLines = units >= 2 && this.rng.chance(0.5);
        let body: { parts: number } | { lines: { line: number; quantity: number }[][] };
        if (byLines) {
          // Every unit to one of two parts, the first to part 0 and the last to part 1.
          const take = [new Map<number, number>(), new Map<number, number>()];
          let u = 0;
          o.units.forEach((q, line) => {
            for (let k = 0; k < q; k++, u++) {
              const part = u === 0 ? 0 : u === units - 1 ? 1 : this.rng.int(0, 1);
              take[part].set(line, (take[part].get(line) ?? 0) + 1);
            }
          });
          body = { lines: take.map((m) => [...m].map(([line, quantity]) => ({ line, quantity }))) };
        } else {
          body = { parts: this.rng.int(2, 3) };
        }
        const user = this.user();
        return {
          label: `split ${o.label} ${'parts' in body ? `in ${body.parts}` : `by lines ${JSON.stringify(body.lines)}`}`,
          order: o,
          run: async () => {
            const res = await this.call(`split ${o.label}`, 'POST', `/t/${slug}/orders/${o.id}/split`, user, body, {
              201: true,
              400: true, // lines of an older version of the order (items added at the same moment)
              409: ['already_paid', 'payment_in_progress', 'already_split', 'order_split', 'order_closed'],
            });
            if (res.statusCode !== 201) return `-> ${this.brief(res)}`;
            const { parent, parts } = res.json() as { parent: OrderView; parts: OrderView[] };
            const sum = parts.reduce((s, p) => s + p.total, 0);
            if (sum !== parent.total) this.fail(`split ${o.label}: parts make ${sum}, the parent ${parent.total}`);
            o.split = true;
            o.total = parent.total;
            return `-> ${parts.map((p) => `${this.track(p, o.id).label}=${p.total}`).join(' ')}`;
          },
        };
      }
      case 'cancel': {
        const o = pickOrder();
        const user = this.rng.chance(0.85) ? admin : staff;
        return {
          label: `cancel ${o.label} as ${user === admin ? 'admin' : 'staff'}`,
          order: o,
          run: async () => {
            const res = await this.call(`cancel ${o.label}`, 'PUT', `/t/${slug}/orders/${o.id}/status`, user, { status: 'cancelled' }, {
              200: true,
              ...(user === staff ? { 403: ['refund_role'] } : {}),
              409: ['payment_in_progress', 'invalid_transition'],
            });
            if (res.statusCode !== 200) return `-> ${this.brief(res)}`;
            const view = res.json() as OrderView;
            if (view.status !== 'cancelled') this.fail(`cancel ${o.label}: answered status ${view.status}`);
            o.cancelled = true;
            return `-> 200 amountPaid ${view.amountPaid}`;
          },
        };
      }
    }
  }

  /** Approves or declines an intent at the terminal (the simulator sends the signed webhook), or approves one given up on. */
  decide(kind: 'approve' | 'decline' | 'lateApprove', i: Intent): Step {
    const shape = this.rng.pick(['event', 'external'] as const);
    const o = this.orders.get(i.orderId)!;
    const what = `${kind} intent ${i.intentId.slice(0, 8)} of ${o.label}`;
    return {
      label: `${what} (${shape})`,
      order: o,
      run: async () => {
        try {
          const decide = kind === 'decline' ? this.sim.decline : this.sim.approve;
          const { webhook } = await decide(i.intentId, { shape, afterCancel: kind === 'lateApprove' });
          if (webhook?.status !== 200) this.fail(`${what}: webhook answered ${webhook?.status} ${webhook?.error ?? ''}`);
          if (kind !== 'decline') o.paid = true;
          if (kind === 'approve') o.due = Math.max(0, o.due - (this.answered.get(i.paymentId)?.amount ?? 0));
          return '-> webhook 200';
        } catch (err) {
          // Another step decided or cancelled it first.
          if ((err as { status?: number }).status === 409) return `-> simulator 409 (${this.sim.getIntent(i.intentId)?.state})`;
          throw err;
        }
      },
    };
  }

  async drainRefunds() {
    const r = await t.app.jobs.drain({ names: [paymentJobs.refund.name], includeDelayed: true });
    if (r.failed) this.fail(`refunds: ${r.failed} refund job(s) failed`);
    return `-> ${r.completed} refund job(s)`;
  }

  /** The next step's kind, weighted by what the sequence has in hand (an intent open, one given up on, money taken). */
  pickKind(): Kind | 'concurrent' {
    const open = this.openIntents().length > 0;
    const givenUp = this.cancelledIntents().length > 0;
    const paid = [...this.orders.values()].some((o) => o.paid && !o.cancelled);
    const live = [...this.orders.values()].some((o) => !o.cancelled && !o.split);
    return this.rng.weighted({
      create: live ? 5 : 30,
      walletCreate: 2,
      addItems: 8,
      payMock: 12,
      payGateway: open ? 4 : 14,
      approve: open ? 28 : 0,
      decline: open ? 10 : 0,
      expire: open ? 10 : 2,
      split: 6,
      cancel: paid ? 14 : 4,
      drainRefunds: 2,
      lateApprove: givenUp ? 15 : 0,
      resend: this.decidedIntents().length ? 4 : 0,
      discount: 6,
      concurrent: 18,
    });
  }

  async step(n: number) {
    const kind = n === 0 ? 'create' : this.pickKind();
    if (kind !== 'concurrent') {
      const s = this.plan(kind);
      this.log.push(`${n}. ${s.label}`);
      this.log[this.log.length - 1] += ` ${await s.run()}`;
      return;
    }
    // Two steps at once, often on the same order (plans are drawn one after the other, then run together).
    const pairable: Kind[] = [
      'payMock', 'payGateway', 'addItems', 'cancel', 'split', 'approve', 'decline', 'expire', 'drainRefunds', 'lateApprove', 'resend', 'create', 'discount',
    ];
    const a = this.rng.pick(pairable);
    const b = this.rng.pick(a === 'expire' ? pairable.filter((k) => k !== 'expire') : pairable);
    this.pairing = true;
    const first = this.plan(a);
    const second = this.plan(b, this.rng.chance(0.7) ? first.order : undefined);
    this.pairing = false;
    this.log.push(`${n}. [ ${first.label} || ${second.label} ]`);
    const [ra, rb] = await Promise.all([first.run(), second.run()]);
    this.log[this.log.length - 1] += ` ${ra} || ${rb}`;
  }

  /** Leaves nothing in flight: open intents are decided or expired. */
  async settle() {
    for (const i of this.openIntents()) {
      const choice = this.rng.weighted({ approve: 1, decline: 1, leave: 1 });
      if (choice === 'leave') continue;
      const s = this.decide(choice, i);
      this.log.push(`end. ${s.label} ${await s.run()}`);
    }
    if (this.openIntents().length) {
      const s = this.plan('expire');
      this.log.push(`end. ${s.label} ${await s.run()}`);
    }
    // The gateway's approval of an intent given up on may still come, after everything else.
    const givenUp = this.cancelledIntents();
    if (givenUp.length && this.rng.chance(0.3)) {
      const s = this.decide('lateApprove', this.rng.pick(givenUp));
      this.log.push(`end. ${s.label} ${await s.run()}`);
    }
    this.log.push(`end. drain refunds ${await this.drainRefunds()}`);
  }

  // -- the properties

  async check(capturedBefore: number, walletBefore: number) {
    const day = (ms: number) => new Date(t.clock.now().getTime() + ms).toISOString().slice(0, 10);
    const list = await this.call('list orders', 'GET', `/t/${slug}/orders?from=${day(-86_400_000)}&to=${day(86_400_000)}&limit=${this.orders.size + 10}`, admin, undefined, { 200: true });
    const views = new Map((list.json() as OrderView[]).map((v) => [v._id, v]));
    let approvedAtTerminal = 0;
    let approvedInWallet = 0;
    const ledgerIds = new Set<string>();
    for (const o of this.orders.values()) {
      const v = views.get(o.id);
      if (!v) this.fail(`${o.label} is not in the order list`);
      const ledger = (await this.call(`ledger of ${o.label}`, 'GET', `/t/${slug}/orders/${o.id}/payments`, admin, undefined, { 200: true })).json() as LedgerRow[];
      const where = `${o.label} (${v.status}, total ${v.total}, paid ${v.amountPaid}, due ${v.amountDue}, ${v.paymentStatus}; ledger ${JSON.stringify(
        ledger.map((p) => [p.gateway, p.status, p.amount, p.tip, p.refundReason]),
      )})`;

      // The order's own arithmetic.
      const lines = v.items.reduce((s, l) => s + (l.amount ?? 0), 0);
      if (v.itemsTotal !== lines) this.fail(`${where}: itemsTotal is not the sum of its line amounts (${lines})`);
      if (v.total !== v.itemsTotal - v.discountTotal + v.serviceCharge + v.coverCharge) this.fail(`${where}: total is not items - discounts + service + cover`);
      if (v.amountDue !== Math.max(0, v.total - v.amountPaid)) this.fail(`${where}: amountDue is not total - amountPaid`);
      const approved = ledger.filter((p) => p.status === 'approved');
      const paid = approved.reduce((s, p) => s + p.amount, 0);
      if (v.amountPaid !== paid) this.fail(`${where}: amountPaid is not the sum of the approved payments (${paid})`);
      if (v.amountPaid > v.total) this.fail(`${where}: more paid than the total`);
      if (v.paymentAttempts !== ledger.length) this.fail(`${where}: paymentAttempts ${v.paymentAttempts}, ledger rows ${ledger.length}`);
      if (ledger.some((p) => p.status === 'processing') || v.paymentStatus === 'processing') this.fail(`${where}: a payment is still in flight`);

      // 2. approved exactly when nothing is due.
      if ((v.paymentStatus === 'approved') !== (v.amountDue === 0)) this.fail(`${where}: paymentStatus ${v.paymentStatus} with ${v.amountDue} due`);

      // Every payment the API answered is in the ledger as answered; any other row is an attempt that never reached a gateway, or the wallet's.
      for (const p of ledger) {
        ledgerIds.add(p._id);
        const a = this.answered.get(p._id);
        if (a && (a.amount !== p.amount || a.tip !== p.tip || a.gateway !== p.gateway)) this.fail(`${where}: payment ${p._id} recorded differently from its answer`);
        if (!a && p.gateway !== 'wallet' && p.status !== 'cancelled') this.fail(`${where}: payment ${p._id} (${p.status}) was never answered`);
        if (p.status === 'approved' && p.refundRequestedAt) this.fail(`${where}: a refund of ${p._id} is still pending after the refund jobs ran`);
        if (p.status === 'refunded' && !p.refundId) this.fail(`${where}: ${p._id} refunded without a refund id`);

        // The gateway's side of each payment.
        if (p.gateway === 'gateway_a') {
          const intent = p.intentId ? this.sim.getIntent(p.intentId) : undefined;
          if (p.intentId && !intent) this.fail(`${where}: intent ${p.intentId} unknown to the gateway`);
          if (intent && intent.amount !== p.amount + p.tip) this.fail(`${where}: intent charged ${intent.amount} for ${p.amount} + tip ${p.tip}`);
          const taken = intent?.payment?.state === 'approved';
          const counted = p.status === 'approved' || p.status === 'refunded';
          if (taken !== counted) this.fail(`${where}: the gateway ${taken ? 'took' : 'did not take'} ${p._id}, the ledger says ${p.status}`);
          const refunded = taken ? this.sim.refundsOf(String(intent!.payment!.id)).reduce((s, r) => s + r.amountCents, 0) : 0;
          if (taken && p.transactionId !== String(intent!.payment!.id)) this.fail(`${where}: ${p._id} transaction ${p.transactionId}, the gateway's ${intent!.payment!.id}`);
          if (refunded !== (p.status === 'refunded' ? p.amount + p.tip : 0)) this.fail(`${where}: the gateway refunded ${refunded} of ${p._id} (${p.status})`);
          if (p.status === 'approved') approvedAtTerminal += p.amount + p.tip;
        }
        if (p.gateway === 'wallet') {
          const refunded = t.app.integrations.wallet.simulator!.refundsOf(p.transactionId!).reduce((s, r) => s + r.amountCents, 0);
          if (refunded !== (p.status === 'refunded' ? p.amount : 0)) this.fail(`${where}: the wallet refunded ${refunded} of ${p._id} (${p.status})`);
          if (p.status === 'approved') approvedInWallet += p.amount;
        }
      }

      // 4. No cancelled order keeps money: nothing approved left (each one refunded, the gateway's confirmed above).
      if (v.status === 'cancelled' && (approved.length || v.amountPaid !== 0)) this.fail(`${where}: cancelled with money kept`);
      if (o.cancelled && v.status !== 'cancelled') this.fail(`${where}: was cancelled, now ${v.status}`);

      // 3. A split's parts add up to the parent.
      if (o.split) {
        if (!v.isSplit) this.fail(`${where}: split, but isSplit is false`);
        const parts = [...views.values()].filter((p) => p.splitBillReference === v.orderNumber);
        const ids = parts.map((p) => p._id).sort();
        if (JSON.stringify(ids) !== JSON.stringify([...o.parts].sort())) this.fail(`${where}: parts ${ids.join(',')}, the split made ${o.parts.join(',')}`);
        const sum = parts.reduce((s, p) => s + p.total, 0);
        if (sum !== v.total) this.fail(`${where}: parts make ${sum}, the parent ${v.total}`);
        for (const field of ['itemsTotal', 'discountTotal', 'serviceCharge'] as const) {
          const share = parts.reduce((s, p) => s + p[field], 0);
          if (share !== v[field]) this.fail(`${where}: the parts' ${field} make ${share}, the parent's ${v[field]}`);
        }
        if (approved.length) this.fail(`${where}: a split parent keeps an approved payment`);
      }
    }
    for (const id of this.answered.keys()) if (!ledgerIds.has(id)) this.fail(`payment ${id} answered by the API is in no ledger`);

    // 1. The gateways hold exactly the approved payments minus the refunded ones.
    const held = this.sim.captured() - capturedBefore;
    if (held !== approvedAtTerminal) this.fail(`the card gateway's captured moved by ${held}; the ledgers' approved card-terminal payments make ${approvedAtTerminal}`);
    const wallet = t.app.integrations.wallet.simulator!.captured() - walletBefore;
    if (wallet !== approvedInWallet) this.fail(`the wallet's captured moved by ${wallet}; the ledgers' approved wallet payments make ${approvedInWallet}`);
    if (badDeliveries.length) this.fail(`webhooks not accepted: ${badDeliveries.join('; ')}`);
  }
}

async function runSequence(seed: number) {
  const rng = new Rng(seed);
  const seq = new Sequence(rng);
  const capturedBefore = seq.sim.captured();
  const walletBefore = t.app.integrations.wallet.simulator!.captured();
  try {
    const steps = rng.int(3, 8);
    for (let n = 0; n < steps; n++) await seq.step(n);
    await seq.settle();
    await seq.check(capturedBefore, walletBefore);
    if (VERBOSE) console.log(`sequence ${seed}\n${seq.log.map((l) => `  ${l}`).join('\n')}`);
  } catch (err) {
    const why = err instanceof PropertyFailure ? err.message : `${(err as Error).stack ?? String(err)}`;
    throw new Error(
      [
        `payments property failed (sequence seed ${seed}, run seed ${BASE_SEED})`,
        `replay: PAYMENTS_PROPERTY_SEED=${seed} PAYMENTS_PROPERTY_RUNS=1 npx vitest run src/modules/payments/payments.property.test.ts`,
        why,
        'steps:',
        ...seq.log.map((l) => `  ${l}`),
      ].join('\n'),
      { cause: err },
    );
  }
}

describe('the payment ledger under random sequences (property)', () => {
  it(`keeps the money, the bill, the splits and the refunds consistent over ${RUNS} sequences (seed ${BASE_SEED})`, async () => {
    for (let i = 0; i < RUNS; i++) await runSequence((BASE_SEED + i) >>> 0);
  }, 600_000);
});
