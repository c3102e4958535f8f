import { newId } from '../../db/ids.js';
import type { ReceivableRow } from '../../db/schema/accounting.js';
import type { TenantDb, TenantTx } from '../../db/scopes.js';
import { Conflict, Invalid, NotFound } from '../../platform/domain-errors.js';
import { localDate } from '../../platform/time.js';
import type { AccountingParts } from './accounting.service.js';
import * as bq from './bank.queries.js';
import type { BookAccount } from './books.js';
import * as cq from './chart.queries.js';
import * as q from './receivables.queries.js';
import {
  AGING_BUCKETS,
  type AgingView,
  type CreateReceivableInput,
  type ListReceivablesInput,
  type ReceivablePageView,
  type ReceivableView,
  type SettleInput,
  type SettleMethod,
  type WriteOffInput,
} from './receivables.schemas.js';

/** Who acts and the tenant's time zone (for "today"). */
export interface BooksCaller {
  userId: string;
  timezone: string;
}

/** Cents of a currency amount, or `null` when it has more than 2 decimals. */
export function centsOf(amount: number): number | null {
  const cents = Math.round(amount * 100);
  return Math.abs(amount * 100 - cents) < 1e-6 ? cents : null;
}
export const units = (cents: number) => cents / 100;
const money = (cents: number) => units(cents).toFixed(2);

interface StoredSettlement {
  amountCents: number;
  feeCents: number;
  paymentMethod: SettleMethod;
  date: string;
  entryId: string;
  at: string;
  by: string | null;
}

const outstandingOf = (r: ReceivableRow) => r.amountCents - r.receivedCents - r.writtenOffCents;

export function toReceivableView(r: ReceivableRow, account: BookAccount | undefined): ReceivableView {
  const settlements = r.settlements as unknown as StoredSettlement[];
  return {
    _id: r.id,
    source: r.source,
    sourceId: r.sourceId,
    customerName: r.customerName,
    description: r.description,
    account: account ?? { id: r.accountId, code: '', name: '' },
    method: r.method,
    amount: units(r.amountCents),
    received: units(r.receivedCents),
    fees: units(settlements.reduce((s, x) => s + (x.feeCents ?? 0), 0)),
    writtenOff: units(r.writtenOffCents),
    outstanding: units(outstandingOf(r)),
    issueDate: r.issueDate,
    dueDate: r.dueDate,
    status: r.status,
    settlements: settlements.map((s) => ({
      amount: units(s.amountCents),
      fee: units(s.feeCents ?? 0),
      paymentMethod: s.paymentMethod,
      date: s.date,
      entryId: s.entryId,
      at: s.at,
      by: s.by,
    })),
    writeOffReason: r.writeOffReason,
    entryId: r.entryId,
    writeOffEntryId: r.writeOffEntryId,
    createdAt: r.createdAt.toISOString(),
  };
}

/**
 * Receivables (spec 4.11 `/receivables`): card sales awaiting the acquirer (created by the automatic
 * postings, source `card_sale`) and sales on credit made by hand; settle (full or partial) and write off,
 * each posting its entry through `books.postAutomatic`. docs/decisions.md, "Accounting: receivables and bank".
 */
export function receivablesPart({ deps, books }: AccountingParts) {
  const views = async (tx: TenantTx, rows: ReceivableRow[]) => {
    const accounts = new Map((await cq.accountsByIds(tx.db, tx.tenantId, [...new Set(rows.map((r) => r.accountId))])).map((a) => [a.id, a]));
    return rows.map((r) => {
      const a = accounts.get(r.accountId);
      return toReceivableView(r, a ? { id: a.id, code: a.code, name: a.name } : undefined);
    });
  };
  const viewOf = async (tx: TenantTx, row: ReceivableRow) => (await views(tx, [row]))[0]!;
  const today = (caller: { timezone: string }) => localDate(deps.clock.now(), caller.timezone);

  return {
    /** A page of receivables, soonest due first; `status`, `source`, `dueFrom`, `dueTo` filter. */
    listReceivables: (t: TenantDb, input: ListReceivablesInput): Promise<ReceivablePageView> =>
      t.run(async (tx) => {
        const page = input.page ?? 1;
        const limit = input.limit ?? 20;
        const { rows, total } = await q.listReceivables(tx.db, tx.tenantId, { ...input, offset: (page - 1) * limit, limit });
        return { data: await views(tx, rows), total, page, totalPages: Math.ceil(total / limit) };
      }),

    /** The outstanding of open and partial receivables in the five buckets of days overdue on the tenant's today. */
    receivablesAging: (t: TenantDb, caller: { timezone: string }): Promise<AgingView> =>
      t.run(async (tx) => {
        const asOf = today(caller);
        const rows = await q.aging(tx.db, tx.tenantId, asOf);
        const buckets = AGING_BUCKETS.map((label, i) => {
          const row = rows.find((r) => r.bucket === i);
          return { label, total: units(row?.cents ?? 0), count: row?.count ?? 0 };
        });
        return { asOf, grandTotal: units(rows.reduce((s, r) => s + r.cents, 0)), buckets };
      }),

    /**
     * A sale on credit: D clientes (posting key `customers`) C the revenue account (default `sales_revenue`,
     * or an active analytic receita account given). The issue date defaults to today, is not after it, and
     * its month is open (409 `period_closed`).
     */
    createReceivable: async (t: TenantDb, caller: BooksCaller, input: CreateReceivableInput): Promise<ReceivableView> => {
      await books.ensureDefaultChart();
      return t.run(async (tx) => {
        const amount = centsOf(input.amount);
        if (amount === null || amount <= 0) throw new Invalid('amount', 'is a positive amount with at most 2 decimals');
        const now = today(caller);
        const issueDate = input.issueDate ?? now;
        if (issueDate > now) throw new Invalid('issueDate', `is after today (${now})`);
        if (input.dueDate < issueDate) throw new Invalid('dueDate', `is before the issue date ${issueDate}`);
        let revenue: BookAccount;
        if (input.revenueAccountId) {
          const [a] = await cq.accountsByIds(tx.db, tx.tenantId, [input.revenueAccountId]);
          if (!a) throw new Invalid('revenueAccountId', 'is not an account of this chart');
          if (!a.active || a.type !== 'analitica' || a.nature !== 'receita') {
            throw new Invalid('revenueAccountId', `is ${a.code} ${a.name}: an active analytic revenue (receita) account is needed`);
          }
          revenue = { id: a.id, code: a.code, name: a.name };
        } else {
          revenue = await books.accountFor(tx, 'sales_revenue');
        }
        const customers = await books.accountFor(tx, 'customers');
        const id = newId();
        const description = input.description.trim();
        const customerName = input.customerName.trim();
        const { entry } = await books.postAutomatic(tx, {
          sourceType: 'receivable',
          sourceId: id,
          date: issueDate,
          description: `Venda a prazo: ${customerName} - ${description}`.slice(0, 500),
          lines: [
            { account: customers, debitCents: amount, creditCents: 0, memo: customerName },
            { account: revenue, debitCents: 0, creditCents: amount, memo: null },
          ],
          userId: caller.userId,
          whenClosed: 'refuse',
        });
        const at = deps.clock.now();
        const row = await q.insertReceivable(tx.db, {
          tenantId: tx.tenantId,
          id,
          source: 'manual',
          sourceId: null,
          customerName,
          description,
          accountId: customers.id,
          method: null,
          amountCents: amount,
          issueDate,
          dueDate: input.dueDate,
          status: 'open',
          settlements: [],
          entryId: entry.id,
          createdBy: caller.userId,
          createdAt: at,
          updatedAt: at,
        });
        return viewOf(tx, row);
      });
    },

    /**
     * A receipt, full or partial: D cash (`cash`) or the bank (any other method; the given bank account's
     * ledger account, else the `bank` key) the amount, D card fees the fee, C the receivable's account
     * amount + fee. The row is locked, so two receipts at once never take more than the outstanding.
     */
    settleReceivable: async (t: TenantDb, caller: BooksCaller, id: string, input: SettleInput): Promise<ReceivableView> => {
      await books.ensureDefaultChart();
      return t.run(async (tx) => {
        const amount = centsOf(input.amount);
        const fee = centsOf(input.fee ?? 0);
        const problems = [
          ...(amount === null || amount <= 0 ? [{ field: 'amount', message: 'is a positive amount with at most 2 decimals' }] : []),
          ...(fee === null || fee < 0 ? [{ field: 'fee', message: 'is an amount with at most 2 decimals' }] : []),
          ...(input.bankAccountId && input.paymentMethod === 'cash' ? [{ field: 'bankAccountId', message: 'is for receipts in the bank: cash goes to the cash account' }] : []),
        ];
        if (problems.length > 0) throw new Invalid(problems);
        const row = await q.lockReceivable(tx.db, tx.tenantId, id);
        if (!row) throw new NotFound('Receivable');
        if (row.status === 'settled') throw new Conflict('The receivable is settled already', 'receivable_settled');
        if (row.status === 'written_off') throw new Conflict('The receivable was written off', 'receivable_written_off');
        const outstanding = outstandingOf(row);
        if (amount! + fee! > outstanding) {
          throw new Invalid('amount', `plus the fee (${money(amount! + fee!)}) exceeds the outstanding ${money(outstanding)}`, { code: 'over_outstanding' });
        }
        const now = today(caller);
        const date = input.date ?? now;
        if (date > now) throw new Invalid('date', `is after today (${now})`);
        if (date < row.issueDate) throw new Invalid('date', `is before the issue date ${row.issueDate}`);
        let into: BookAccount;
        if (input.paymentMethod === 'cash') into = await books.accountFor(tx, 'cash');
        else if (input.bankAccountId) {
          const bank = await bq.findBankAccount(tx.db, tx.tenantId, input.bankAccountId);
          if (!bank) throw new Invalid('bankAccountId', 'is not a bank account of this tenant');
          const [a] = await cq.accountsByIds(tx.db, tx.tenantId, [bank.ledgerAccountId]);
          into = { id: a!.id, code: a!.code, name: a!.name };
        } else into = await books.accountFor(tx, 'bank');
        const [account] = await cq.accountsByIds(tx.db, tx.tenantId, [row.accountId]);
        const settlements = row.settlements as unknown as StoredSettlement[];
        const n = settlements.length + 1;
        const label = row.customerName ? `${row.customerName} - ${row.description}` : row.description;
        const { entry } = await books.postAutomatic(tx, {
          sourceType: 'receivable_settlement',
          sourceId: `${id}:${n}`,
          date,
          description: `Recebimento ${n}: ${label}`.slice(0, 500),
          lines: [
            { account: into, debitCents: amount!, creditCents: 0, memo: input.paymentMethod },
            { account: await books.accountFor(tx, 'card_fees'), debitCents: fee!, creditCents: 0, memo: 'taxa do adquirente' },
            { account: { id: account!.id, code: account!.code, name: account!.name }, debitCents: 0, creditCents: amount! + fee!, memo: null },
          ],
          userId: caller.userId,
          whenClosed: 'refuse',
        });
        const received = row.receivedCents + amount! + fee!;
        const at = deps.clock.now();
        const settlement: StoredSettlement = {
          amountCents: amount!,
          feeCents: fee!,
          paymentMethod: input.paymentMethod,
          date,
          entryId: entry.id,
          at: at.toISOString(),
          by: caller.userId,
        };
        const updated = await q.updateReceivable(tx.db, tx.tenantId, id, {
          receivedCents: received,
          status: received + row.writtenOffCents >= row.amountCents ? 'settled' : 'partial',
          settlements: [...settlements, settlement] as unknown as Record<string, unknown>[],
          updatedAt: at,
        });
        return viewOf(tx, updated);
      });
    },

    /** The outstanding given up: D bad debts C the receivable's account, dated today; status `written_off`, the reason kept. */
    writeOffReceivable: async (t: TenantDb, caller: BooksCaller, id: string, input: WriteOffInput): Promise<ReceivableView> => {
      await books.ensureDefaultChart();
      return t.run(async (tx) => {
        const reason = input.reason.trim();
        const row = await q.lockReceivable(tx.db, tx.tenantId, id);
        if (!row) throw new NotFound('Receivable');
        if (row.status === 'written_off') throw new Conflict('The receivable was written off already', 'receivable_written_off');
        const outstanding = outstandingOf(row);
        if (outstanding <= 0) throw new Conflict('Nothing is outstanding on the receivable: it is settled', 'nothing_outstanding');
        const [account] = await cq.accountsByIds(tx.db, tx.tenantId, [row.accountId]);
        const label = row.customerName ? `${row.customerName} - ${row.description}` : row.description;
        const { entry } = await books.postAutomatic(tx, {
          sourceType: 'receivable_write_off',
          sourceId: id,
          date: today(caller),
          description: `Baixa por perda: ${label}: ${reason}`.slice(0, 500),
          lines: [
            { account: await books.accountFor(tx, 'bad_debts'), debitCents: outstanding, creditCents: 0, memo: reason.slice(0, 500) },
            { account: { id: account!.id, code: account!.code, name: account!.name }, debitCents: 0, creditCents: outstanding, memo: null },
          ],
          userId: caller.userId,
          whenClosed: 'refuse',
        });
        const updated = await q.updateReceivable(tx.db, tx.tenantId, id, {
          writtenOffCents: row.writtenOffCents + outstanding,
          status: 'written_off',
          writeOffReason: reason,
          writeOffEntryId: entry.id,
          updatedAt: deps.clock.now(),
        });
        return viewOf(tx, updated);
      });
    },
  };
}
