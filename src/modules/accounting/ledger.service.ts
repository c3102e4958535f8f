import type { TenantDb } from '../../db/scopes.js';
import type { PeriodClosingRow } from '../../db/schema/accounting.js';
import { Conflict, Invalid, isUniqueViolation, NotFound } from '../../platform/domain-errors.js';
import type { AccountingParts } from './accounting.service.js';
import * as q from './ledger.queries.js';
import type { BalanceteRow, PeriodBody, PeriodClosing, RazaoLine, RazaoQuery } from './ledger.schemas.js';

/** Integer cents to currency units (2 decimals). */
const units = (cents: number) => cents / 100;
const label = (p: { year: number; month: number }) => `${p.year}-${String(p.month).padStart(2, '0')}`;

function toBalanceteRow(r: q.BalanceteCents): BalanceteRow {
  return {
    accountId: r.accountId,
    accountCode: r.accountCode,
    accountName: r.accountName,
    nature: r.nature,
    totalDebit: units(r.debitCents),
    totalCredit: units(r.creditCents),
    balance: units(r.balanceCents),
  };
}

function toPeriodView(row: PeriodClosingRow): PeriodClosing {
  return {
    year: row.year,
    month: row.month,
    status: row.status,
    closedAt: row.closedAt.toISOString(),
    closedBy: row.closedBy,
    reopenedAt: row.reopenedAt?.toISOString() ?? null,
    reopenedBy: row.reopenedBy,
    trialBalanceSnapshot: row.trialBalanceSnapshot as BalanceteRow[],
  };
}

const openPeriod = (p: { year: number; month: number }): PeriodClosing => ({
  year: p.year,
  month: p.month,
  status: 'open',
  closedAt: null,
  closedBy: null,
  reopenedAt: null,
  reopenedBy: null,
  trialBalanceSnapshot: null,
});

/** Periods (close, reopen, list) and the ledger (balancete, razão), spec 4.11. docs/decisions.md, "Accounting: periods and ledger". */
export function ledgerPart({ deps, needs }: AccountingParts) {
  const audited = async (tx: TenantDb, action: 'period.closed' | 'period.reopened', userId: string, view: PeriodClosing) => {
    await needs.audit.record(tx, { action, actorId: userId, targetType: 'period', targetId: label(view), details: { year: view.year, month: view.month } });
    return view;
  };

  const balancete = (t: TenantDb, p: { year: number; month: number }): Promise<BalanceteRow[]> =>
    t.run(async (tx) => (await q.balanceteCents(tx.db, tx.tenantId, p.year, p.month)).map(toBalanceteRow));

  return {
    /** The month's balancete: posted entries only, one row per account with lines in the month (no roll-up into synthetic parents). */
    balancete,

    /**
     * The razão of an analytic account (the tenant's or the system's) between two dates, included: one
     * line per posted journal line, the running balance by the balance rule from the balance before
     * `startDate`. 404 for an account the tenant does not see, 400 for a synthetic one.
     */
    razao: (t: TenantDb, query: RazaoQuery): Promise<RazaoLine[]> =>
      t.run(async (tx) => {
        if (query.endDate < query.startDate) throw new Invalid('endDate', 'must not be before startDate', { in: 'querystring' });
        const account = await q.findAccount(tx.db, tx.tenantId, query.accountId);
        if (!account) throw new NotFound('Account');
        if (account.type !== 'analitica') throw new Invalid('accountId', 'is a synthetic account: the razão is kept for analytic accounts', { in: 'querystring' });
        const sign = q.DEBIT_NATURES.includes(account.nature) ? 1 : -1;
        const opening = await q.netBefore(tx.db, tx.tenantId, account.id, query.startDate);
        const lines = await q.razaoCents(tx.db, tx.tenantId, account.id, query.startDate, query.endDate);
        return lines.map((l) => ({
          entryNumber: l.entryNumber,
          competenceDate: l.competenceDate,
          description: l.description,
          debit: units(l.debitCents),
          credit: units(l.creditCents),
          runningBalance: units(sign * (opening + l.runningNetCents)),
        }));
      }),

    /** Every month with an entry or a closing row, oldest first; `open` for a month never closed. */
    periods: (t: TenantDb): Promise<PeriodClosing[]> =>
      t.run(async (tx) => {
        const rows = await q.listPeriodRows(tx.db, tx.tenantId);
        const byMonth = new Map<string, PeriodClosing>(rows.map((r) => [label(r), toPeriodView(r)]));
        for (const m of await q.monthsWithEntries(tx.db, tx.tenantId)) if (!byMonth.has(label(m))) byMonth.set(label(m), openPeriod(m));
        return [...byMonth.values()].sort((a, b) => a.year - b.year || a.month - b.month);
      }),

    /**
     * Closes a month: its balancete becomes the snapshot, and nothing is posted, reversed or dated in it
     * until it is reopened (`assertPeriodOpen`). 409 `period_already_closed` when it is closed. Drafts
     * dated in the month do not stop it: they stay drafts, out of the snapshot, and cannot be posted
     * while the month is closed.
     */
    close: (t: TenantDb, userId: string, p: PeriodBody): Promise<PeriodClosing> =>
      t.run(async (tx) => {
        await q.lockPeriodExclusive(tx.db, tx.tenantId, p.year, p.month);
        const row = await q.lockPeriodRow(tx.db, tx.tenantId, p.year, p.month);
        if (row?.status === 'closed') throw new Conflict(`The period ${label(p)} is closed already`, 'period_already_closed', [{ field: 'period', message: label(p) }]);
        // The month's first close: no row for a posting's `for share` read to wait on, so wait for the
        // writes in flight here (a posting that checked the month before this commits is in the snapshot).
        if (!row) await q.lockMonthWrites(tx.db, tx.tenantId, p.year, p.month);
        const snapshot = (await q.balanceteCents(tx.db, tx.tenantId, p.year, p.month)).map(toBalanceteRow);
        const closing = { status: 'closed' as const, trialBalanceSnapshot: snapshot, closedAt: deps.clock.now(), closedBy: userId };
        if (row) return audited(tx, 'period.closed', userId, toPeriodView(await q.updatePeriodRow(tx.db, tx.tenantId, p.year, p.month, closing)));
        try {
          const inserted = await tx.db.transaction((sp) => q.insertPeriodRow(sp, { tenantId: tx.tenantId, year: p.year, month: p.month, ...closing }));
          return await audited(tx, 'period.closed', userId, toPeriodView(inserted));
        } catch (err) {
          // Only without the advisory lock could another close insert the row first; it is closed then.
          if (isUniqueViolation(err)) throw new Conflict(`The period ${label(p)} is closed already`, 'period_already_closed', [{ field: 'period', message: label(p) }]);
          throw err;
        }
      }),

    /** Reopens a closed month (409 `period_not_closed` otherwise); its last snapshot is kept until it is closed again. */
    reopen: (t: TenantDb, userId: string, p: PeriodBody): Promise<PeriodClosing> =>
      t.run(async (tx) => {
        await q.lockPeriodExclusive(tx.db, tx.tenantId, p.year, p.month);
        const row = await q.lockPeriodRow(tx.db, tx.tenantId, p.year, p.month);
        if (row?.status !== 'closed') throw new Conflict(`The period ${label(p)} is not closed`, 'period_not_closed', [{ field: 'period', message: label(p) }]);
        const reopened = await q.updatePeriodRow(tx.db, tx.tenantId, p.year, p.month, { status: 'reopened', reopenedAt: deps.clock.now(), reopenedBy: userId });
        return audited(tx, 'period.reopened', userId, toPeriodView(reopened));
      }),
  };
}
