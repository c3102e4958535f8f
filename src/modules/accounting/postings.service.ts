import { newId } from '../../db/ids.js';
import type { JournalEntryRow, JournalLineRow } from '../../db/schema/accounting.js';
import type { PaymentRow } from '../../db/schema/payments.js';
import type { TenantDb, TenantTx } from '../../db/scopes.js';
import { Invalid, NotFound } from '../../platform/domain-errors.js';
import { addDays, localDate } from '../../platform/time.js';
import { costOf } from '../inventory/index.js';
import type { AccountingParts } from './accounting.service.js';
import { accountingJobs, postingKey, type PostingJob } from './accounting.jobs.js';
import { POSTING_KEY_NAMES, POSTING_KEYS, type BookAccount, type EntryLine, type PostingKey } from './books.js';
import * as cq from './chart.queries.js';
import { assertExpenseMonthsOpen, expensePostings } from './postings.expenses.js';
import * as pq from './postings.queries.js';
import type { AccountMappingView } from './postings.schemas.js';

/** `num / den` rounded half up, both non-negative (BigInt: cents x cents passes 2^53). */
const divHalfUp = (num: bigint, den: bigint) => Number((num * 2n + den) / (den * 2n));

/** The parts of a bill a payment pays, in proportion: items (gross), discounts, service and cover charge. */
export interface BillShares {
  items: number;
  discounts: number;
  service: number;
}

/**
 * Splits `amount` cents over the bill's composition in proportion: the discount and the service (+ cover)
 * shares are rounded half up, the items share takes the remainder, so items - discounts + service = amount
 * to the cent. A bill with nothing left on it (total 0) puts it all on the items.
 */
export function billShares(amount: number, bill: { itemsTotal: number; discountTotal: number; serviceCharge: number; coverCharge: number }): BillShares {
  const service = bill.serviceCharge + bill.coverCharge;
  const total = bill.itemsTotal - bill.discountTotal + service;
  if (total <= 0 || bill.discountTotal < 0 || service < 0) return { items: amount, discounts: 0, service: 0 };
  const discounts = divHalfUp(BigInt(amount) * BigInt(bill.discountTotal), BigInt(total));
  const serviceShare = divHalfUp(BigInt(amount) * BigInt(service), BigInt(total));
  return { items: amount + discounts - serviceShare, discounts, service: serviceShare };
}

/** The account a payment's money goes to until it is in the bank (docs/decisions.md "Accounting: automatic postings"). */
export function moneyKeyOf(p: Pick<PaymentRow, 'method' | 'gateway'>): PostingKey {
  if (p.gateway === 'wallet') return 'pix_receivable';
  // A delivery platform collected it: the platform owes it to the restaurant until its payout.
  if (p.gateway === 'marketplace') return 'customers';
  if (p.method === 'cash' || p.method === 'mixed') return 'cash';
  if (p.method === 'pix') return 'bank';
  return 'card_receivable';
}

/** Days until the acquirer pays a card sale: debit D+1, credit and voucher D+30 (a `card` of unknown kind: as credit). */
export const SETTLEMENT_DAYS: Record<string, number> = { debit_card: 1, credit_card: 30, voucher: 30, card: 30 };

const METHOD_LABELS: Record<string, string> = {
  cash: 'dinheiro',
  credit_card: 'cartão de crédito',
  debit_card: 'cartão de débito',
  card: 'cartão',
  voucher: 'vale-refeição',
  pix: 'PIX',
  mixed: 'misto',
};
const GATEWAY_LABELS: Record<string, string> = { wallet: 'carteira online', marketplace: 'plataforma de delivery' };
const methodLabel = (p: Pick<PaymentRow, 'method' | 'gateway'>) => GATEWAY_LABELS[p.gateway ?? ''] ?? METHOD_LABELS[p.method] ?? p.method;

const line = (account: BookAccount, debitCents: number, creditCents: number, memo: string | null): EntryLine => ({ account, debitCents, creditCents, memo });
/** A line's memo without the note of a posting moved out of a closed month (the refund has its own day). */
const withoutNote = (memo: string | null) => memo?.replace(/\s*\(?competência original \d{4}-\d{2}-\d{2}\)?$/, '') || null;
const accountOfLine = (l: JournalLineRow): BookAccount => ({ id: l.accountId, code: l.accountCode, name: l.accountName });

/**
 * Automatic postings (issue 14, beyond the spec): approved and refunded payments, the cost of what was sold,
 * goods received. The source modules tell their events inside their transactions; the listener here only
 * sends an `accounting.post` job in that transaction (a rollback sends nothing, the payment never waits on
 * the books); the job posts once per source (`books.postAutomatic`). And the account mapping routes.
 */
export function postingsPart({ deps, books, needs }: AccountingParts) {
  const { payments, inventory, purchasing, orders, tenants, dre } = needs;
  const expenses = expensePostings(books);

  let warned = false;
  /** Enqueues the posting of a source in the caller's transaction (one job per source: duplicates are dropped). */
  async function enqueue(tx: TenantTx, job: Omit<PostingJob, 'tenantId'>, singletonKey = postingKey(job.sourceType, job.sourceId)) {
    if (!deps.jobs.started) {
      // Only the first start's demo seed runs before the queue starts (main.ts): its history is not posted.
      if (!warned) deps.log.warn({ sourceType: job.sourceType, sourceId: job.sourceId }, 'automatic postings skipped: the job queue is not running yet');
      warned = true;
      return;
    }
    await deps.jobs.send(accountingJobs.post, { tenantId: tx.tenantId, ...job }, { tx: tx.db, singletonKey });
  }

  payments.onApproved((tx, p) => enqueue(tx, { sourceType: 'payment', sourceId: p.id }));
  payments.onRefunded((tx, p) => enqueue(tx, { sourceType: 'payment_refund', sourceId: p.id }));
  inventory.onSaleMovements((tx, e) =>
    enqueue(tx, { sourceType: e.reason === 'sale' ? 'sale_cost' : 'sale_cost_return', sourceId: e.movementIds[0]!, movementIds: e.movementIds }),
  );
  // An expense is posted by a job too, but its months must be open now: a closed month's DRE does not change.
  dre.onExpenseChange(async (tx, change) => {
    await assertExpenseMonthsOpen(tx, [change.expense.competenceDate, change.before?.competenceDate]);
    await enqueue(tx, { sourceType: 'operating_expense', sourceId: change.expense.id }, `${change.expense.id}@${deps.clock.now().getTime()}:${change.kind}`);
  });
  purchasing.onGoodsReceived((tx, r) =>
    r.kind === 'purchase_order'
      ? enqueue(tx, { sourceType: 'purchase_receipt', sourceId: r.movementIds[0]!, movementIds: r.movementIds, refId: r.id })
      : enqueue(tx, { sourceType: 'purchase_invoice', sourceId: r.id, movementIds: r.movementIds }),
  );

  type Posted = { entry: JournalEntryRow; lines: JournalLineRow[]; created: boolean };

  /** The sale of an approved (or since refunded) payment, and its card receivable; null when there is nothing to post. */
  async function postPayment(tx: TenantTx, timezone: string, p: PaymentRow): Promise<Posted | null> {
    if (p.status !== 'approved' && p.status !== 'refunded') return null;
    const order = await orders.findById(tx, p.orderId);
    const shares = order ? billShares(p.amount, order) : { items: p.amount, discounts: 0, service: 0 };
    const moneyKey = moneyKeyOf(p);
    const money = await books.accountFor(tx, moneyKey);
    const day = localDate(p.settledAt ?? p.createdAt, timezone);
    const ref = order?.orderNumber ?? p.orderId;
    const posted = await books.postAutomatic(tx, {
      sourceType: 'payment',
      sourceId: p.id,
      date: day,
      description: `Recebimento do pedido ${ref} (${methodLabel(p)})`,
      lines: [
        line(money, p.amount + p.tip, 0, methodLabel(p)),
        line(await books.accountFor(tx, 'discounts'), shares.discounts, 0, 'descontos'),
        line(await books.accountFor(tx, 'sales_revenue'), 0, shares.items, 'itens'),
        line(await books.accountFor(tx, 'service_revenue'), 0, shares.service, 'taxa de serviço e couvert'),
        line(await books.accountFor(tx, 'tips_payable'), 0, p.tip, 'gorjeta'),
      ],
      whenClosed: 'next_open',
    });
    const days = SETTLEMENT_DAYS[p.method];
    if (moneyKey === 'card_receivable' && days !== undefined) {
      const now = deps.clock.now();
      await pq.insertCardReceivable(tx.db, {
        tenantId: tx.tenantId,
        id: newId(),
        source: 'card_sale',
        sourceId: p.id,
        customerName: order?.customerName ?? null,
        description: `Venda do pedido ${ref} (${methodLabel(p)})`,
        accountId: money.id,
        method: p.method,
        amountCents: p.amount + p.tip,
        issueDate: day,
        dueDate: addDays(day, days),
        status: 'open',
        entryId: posted.entry.id,
        createdAt: now,
        updatedAt: now,
      });
    }
    return posted;
  }

  /** A refund: the sale's lines swapped, on the refund's day (the sale posted first when its job has not run yet); its card receivable closed. */
  async function postRefund(tx: TenantTx, timezone: string, p: PaymentRow): Promise<string> {
    if (p.status !== 'refunded') return 'not refunded';
    const sale = (await postPayment(tx, timezone, p))!;
    const posted = await books.postAutomatic(tx, {
      sourceType: 'payment_refund',
      sourceId: p.id,
      date: localDate(p.refundedAt ?? deps.clock.now(), timezone),
      description: `Estorno do recebimento ${sale.entry.entryNumber}: ${sale.entry.description}`,
      lines: sale.lines.map((l) => line(accountOfLine(l), l.creditCents, l.debitCents, withoutNote(l.memo))),
      whenClosed: 'next_open',
    });
    const receivable = await pq.lockCardReceivable(tx.db, tx.tenantId, p.id);
    if (receivable && (receivable.status === 'open' || receivable.status === 'partial')) {
      // The refund entry already credits the receivable's account: the rest is closed without a loss posting.
      await pq.updateReceivable(tx.db, tx.tenantId, receivable.id, {
        status: 'written_off',
        writtenOffCents: receivable.amountCents - receivable.receivedCents,
        writeOffReason: 'payment refunded',
        writeOffEntryId: posted.entry.id,
        updatedAt: deps.clock.now(),
      });
    }
    return posted.created ? 'posted' : 'already posted';
  }

  /** The cost of a deduction event (`sale_cost`) or of its returns (`sale_cost_return`): unit cost x quantity, rounded once. */
  async function postSaleCost(tx: TenantTx, timezone: string, job: PostingJob): Promise<string> {
    const returning = job.sourceType === 'sale_cost_return';
    const moves = (await inventory.movementsByIds(tx, job.movementIds ?? [job.sourceId])).filter((m) => m.reason === (returning ? 'return' : 'sale'));
    if (!moves.length) return 'no movements';
    const exact = moves.reduce((sum, m) => sum + BigInt(m.quantityMilli) * BigInt(m.unitCostCents ?? 0), 0n);
    const cents = divHalfUp(exact, 1000n);
    if (cents <= 0) return 'no cost';
    const orderId = moves.find((m) => m.orderId)?.orderId;
    const order = orderId ? await orders.findById(tx, orderId) : null;
    const ref = order?.orderNumber ?? orderId ?? '?';
    const [cogs, stock] = [await books.accountFor(tx, 'cogs'), await books.accountFor(tx, 'inventory')];
    const first = moves.reduce((a, b) => (a.createdAt <= b.createdAt ? a : b));
    const memo = `${moves.length} movimento(s) de estoque`;
    const posted = await books.postAutomatic(tx, {
      sourceType: job.sourceType,
      sourceId: job.sourceId,
      date: localDate(first.createdAt, timezone),
      description: returning ? `Devolução ao estoque do pedido ${ref} (CMV estornado)` : `CMV do pedido ${ref}`,
      lines: returning ? [line(stock, cents, 0, memo), line(cogs, 0, cents, memo)] : [line(cogs, cents, 0, memo), line(stock, 0, cents, memo)],
      whenClosed: 'next_open',
    });
    return posted.created ? 'posted' : 'already posted';
  }

  /** Goods received (a purchase order's receipt, an imported invoice): inventory against suppliers, quantity x unit price per line. */
  async function postReceipt(tx: TenantTx, timezone: string, job: PostingJob): Promise<string> {
    const moves = (await inventory.movementsByIds(tx, job.movementIds ?? [])).filter((m) => m.reason === 'purchase');
    if (!moves.length) return 'no movements';
    const cents = moves.reduce((sum, m) => sum + costOf(m.quantityMilli, m.unitCostCents ?? 0), 0);
    if (cents <= 0) return 'no cost';
    const kind = job.sourceType === 'purchase_invoice' ? 'invoice' : 'purchase_order';
    const ref = await purchasing.receiptRef(tx, kind, job.refId ?? job.sourceId);
    const what = ref ? `${ref.reference}${ref.supplierName ? ` de ${ref.supplierName}` : ''}` : 'mercadorias';
    const first = moves.reduce((a, b) => (a.createdAt <= b.createdAt ? a : b));
    const memo = `${moves.length} item(ns)`;
    const posted = await books.postAutomatic(tx, {
      sourceType: job.sourceType,
      sourceId: job.sourceId,
      date: localDate(first.createdAt, timezone),
      description: `Recebimento de ${what}`,
      lines: [line(await books.accountFor(tx, 'inventory'), cents, 0, memo), line(await books.accountFor(tx, 'suppliers'), 0, cents, memo)],
      whenClosed: 'next_open',
    });
    return posted.created ? 'posted' : 'already posted';
  }

  /** The posting keys as the mapping routes show them (one key, or all). */
  async function mappingViews(tx: TenantTx, keys: readonly PostingKey[]): Promise<AccountMappingView[]> {
    const overrides = new Map((await pq.listMappings(tx.db, tx.tenantId)).map((m) => [m.key, m]));
    const accounts = await cq.accountsByIds(
      tx.db,
      tx.tenantId,
      [...overrides.values()].map((m) => m.accountId),
    );
    const views: AccountMappingView[] = [];
    for (const key of keys) {
      const o = overrides.get(key);
      const mapped = o && accounts.find((a) => a.id === o.accountId);
      const usable = mapped && mapped.active && mapped.type === 'analitica' ? mapped : null;
      const { code, label } = POSTING_KEYS[key];
      const account = usable ?? (await cq.findTenantAccountByCode(tx.db, tx.tenantId, code)) ?? (await cq.findSystemAccountByCode(tx.db, code));
      views.push({
        key,
        label,
        defaultCode: code,
        account: account ? { _id: account.id, code: account.code, name: account.name } : null,
        overridden: usable !== null,
        updatedAt: usable && o ? o.updatedAt.toISOString() : null,
      });
    }
    return views;
  }

  const keyOf = (key: string): PostingKey => {
    if (!(POSTING_KEY_NAMES as string[]).includes(key)) throw new NotFound('Posting key', `No posting key ${key}: GET .../accounting/mappings lists them`);
    return key as PostingKey;
  };

  return {
    /**
     * The `accounting.post` handler: the default chart made sure of (outside the tenant's transaction), then
     * the source read and posted in one transaction of the tenant. Idempotent: a source posts once.
     */
    async postSource(job: PostingJob): Promise<string> {
      await books.ensureDefaultChart();
      const tenant = await tenants.findById(job.tenantId);
      if (!tenant) return 'tenant gone';
      return deps.tenantDb(job.tenantId).run(async (tx) => {
        switch (job.sourceType) {
          case 'payment':
          case 'payment_refund': {
            const p = await payments.findById(tx, job.sourceId);
            if (!p) return 'payment gone';
            if (job.sourceType === 'payment_refund') return postRefund(tx, tenant.timezone, p);
            const posted = await postPayment(tx, tenant.timezone, p);
            return !posted ? `payment ${p.status}` : posted.created ? 'posted' : 'already posted';
          }
          case 'sale_cost':
          case 'sale_cost_return':
            return postSaleCost(tx, tenant.timezone, job);
          case 'purchase_receipt':
          case 'purchase_invoice':
            return postReceipt(tx, tenant.timezone, job);
          case 'operating_expense':
            return expenses.sync(tx, job.sourceId, () => dre.expenseForPosting(tx, job.sourceId));
          default:
            throw new Error(`accounting.post: unknown source type ${String(job.sourceType)}`);
        }
      });
    },

    /** Every posting key with the account in use (GET /mappings). */
    listMappings: (t: TenantDb): Promise<AccountMappingView[]> => t.run((tx) => mappingViews(tx, POSTING_KEY_NAMES)),

    /** Points a key at an active analytic account of the tenant or the system chart (400 otherwise; 404 for an unknown key). */
    setMapping: (t: TenantDb, userId: string, key: string, accountId: string): Promise<AccountMappingView> =>
      t.run(async (tx) => {
        const k = keyOf(key);
        const [a] = await cq.accountsByIds(tx.db, tx.tenantId, [accountId]);
        if (!a) throw new Invalid('accountId', 'is not an account of this chart');
        if (!a.active) throw new Invalid('accountId', `names the inactive account ${a.code} ${a.name}`);
        if (a.type !== 'analitica') throw new Invalid('accountId', `names the synthetic account ${a.code} ${a.name}: postings go to analytic accounts`);
        await pq.upsertMapping(tx.db, { tenantId: tx.tenantId, key: k, accountId: a.id, updatedBy: userId, now: deps.clock.now() });
        return (await mappingViews(tx, [k]))[0]!;
      }),

    /** Back to the default account of a key (404 for an unknown key; a key without an override answers as it is). */
    clearMapping: (t: TenantDb, key: string): Promise<AccountMappingView> =>
      t.run(async (tx) => {
        const k = keyOf(key);
        await pq.deleteMapping(tx.db, tx.tenantId, k);
        return (await mappingViews(tx, [k]))[0]!;
      }),
  };
}
