import { newId } from '../../db/ids.js';
import { seedChart } from './chart.seed.js';
import type { ChartAccountRow, JournalEntryRow, JournalLineRow, SystemAccountRow } from '../../db/schema/accounting.js';
import type { TenantDb } from '../../db/scopes.js';
import { Conflict, Invalid, InvalidRequest, NotFound, isUniqueViolation, type FieldProblem } from '../../platform/domain-errors.js';
import type { AccountingParts } from './accounting.service.js';
import { compareCodes, type DreGroup } from './chart.defaults.js';
import * as cq from './chart.queries.js';
import type { ChartAccountView, CreateAccountInput } from './chart.schemas.js';
import * as q from './journal.queries.js';
import type { CreateEntryInput, JournalEntryView, JournalPageView, ListJournalInput, ReverseEntryInput } from './journal.schemas.js';
import { assertPeriodOpen } from './periods.js';

/** An account of either chart: a tenant row has `tenantId`, a system row has none. */
type AnyAccount = SystemAccountRow | (ChartAccountRow & { tenantId: string });
const tenantOfAccount = (a: AnyAccount) => ('tenantId' in a ? a.tenantId : null);

export function toAccountView(a: AnyAccount): ChartAccountView {
  return {
    _id: a.id,
    code: a.code,
    name: a.name,
    nature: a.nature,
    type: a.type,
    normalBalance: a.normalBalance,
    parent: a.parentId,
    dreGroup: a.dreGroup as DreGroup | null,
    tenant: tenantOfAccount(a),
    active: a.active,
  };
}

/** Cents of a currency amount, or `null` when it has more than 2 decimals. */
function centsOf(amount: number): number | null {
  const cents = Math.round(amount * 100);
  return Math.abs(amount * 100 - cents) < 1e-6 ? cents : null;
}
const units = (cents: number) => cents / 100;
const money = (cents: number) => units(cents).toFixed(2);

export function toEntryView(e: JournalEntryRow, lines: JournalLineRow[]): JournalEntryView {
  return {
    _id: e.id,
    entryNumber: e.entryNumber,
    competenceDate: e.competenceDate,
    description: e.description,
    status: e.status,
    totalAmount: units(e.totalCents),
    lines: lines.map((l) => ({
      accountId: l.accountId,
      accountCode: l.accountCode,
      accountName: l.accountName,
      debit: units(l.debitCents),
      credit: units(l.creditCents),
      memo: l.memo,
    })),
    reverses: e.reversesId,
    reversedBy: e.reversedById,
    reversalReason: e.reversalReason,
    source: e.sourceType && e.sourceId ? { type: e.sourceType, id: e.sourceId } : null,
    createdAt: e.createdAt.toISOString(),
    postedAt: e.postedAt ? e.postedAt.toISOString() : null,
  };
}

/** Why an account cannot receive a line, or null when it can (active and analytic). */
function unusable(a: AnyAccount | undefined): string | null {
  if (!a) return 'is not an account of this chart';
  if (!a.active) return `names the inactive account ${a.code} ${a.name}`;
  if (a.type !== 'analitica') return `names the synthetic account ${a.code} ${a.name}: lines go to analytic accounts`;
  return null;
}

/**
 * The chart of accounts and the journal (spec 4.11 `/chart`, `/journal`). docs/decisions.md, "Accounting:
 * chart and journal (issue 14)".
 */
export function journalPart({ deps, books }: AccountingParts) {
  const { allocateNumber, writeEntry } = books;

  return {
    // ---- chart

    /** The system accounts, then the tenant's, each by code (6.2 before 6.10). */
    listChart: (t: TenantDb): Promise<ChartAccountView[]> =>
      t.run(async (tx) => {
        const system = (await cq.listSystemAccounts(tx.db)).sort((a, b) => compareCodes(a.code, b.code));
        const own = (await cq.listTenantAccounts(tx.db, tx.tenantId)).sort((a, b) => compareCodes(a.code, b.code));
        return [...system.map(toAccountView), ...own.map(toAccountView)];
      }),

    /**
     * A tenant account: the code unique across the system chart and the tenant's (409 `code_taken`); the
     * parent an active synthetic account of either (400), of the same nature, and the code under its code.
     */
    createAccount: (t: TenantDb, input: CreateAccountInput): Promise<ChartAccountView> =>
      t.run(async (tx) => {
        const parentId = input.parent ?? null;
        if (parentId) {
          const parent: AnyAccount | null = (await cq.findTenantAccount(tx.db, tx.tenantId, parentId, 'share')) ?? (await cq.findSystemAccount(tx.db, parentId));
          if (!parent) throw new Invalid('parent', 'is not an account of this chart');
          if (!parent.active) throw new Invalid('parent', `is the inactive account ${parent.code} ${parent.name}`);
          if (parent.type !== 'sintetica') throw new Invalid('parent', `is the analytic account ${parent.code} ${parent.name}: a parent must be synthetic`);
          if (parent.nature !== input.nature) throw new Invalid('nature', `must be ${parent.nature}, the nature of the parent ${parent.code} ${parent.name}`);
          if (!input.code.startsWith(`${parent.code}.`)) throw new Invalid('code', `must start with ${parent.code}. (the parent's code)`);
        }
        const taken = (await cq.findSystemAccountByCode(tx.db, input.code)) ?? (await cq.findTenantAccountByCode(tx.db, tx.tenantId, input.code));
        if (taken) throw new Conflict(`The code ${input.code} is taken by ${taken.name}`, 'code_taken');
        const now = deps.clock.now();
        try {
          const row = await tx.db.transaction((sp) =>
            cq.insertTenantAccount(sp, {
              tenantId: tx.tenantId,
              id: newId(),
              code: input.code,
              name: input.name.trim(),
              nature: input.nature,
              type: input.type,
              normalBalance: input.normalBalance,
              parentId,
              dreGroup: input.dreGroup ?? null,
              active: true,
              createdAt: now,
              updatedAt: now,
            }),
          );
          return toAccountView(row);
        } catch (err) {
          if (isUniqueViolation(err, 'chart_accounts_code_key')) throw new Conflict(`The code ${input.code} is taken`, 'code_taken');
          throw err;
        }
      }),

    /**
     * Soft delete (`active: false`) of a tenant account. A system account: 400 `system_account`; one with
     * active children: 409 `account_has_children`. Posted lines stay (history); a draft naming it cannot be
     * posted until it is corrected.
     */
    deactivateAccount: (t: TenantDb, id: string): Promise<ChartAccountView> =>
      t.run(async (tx) => {
        const row = await cq.findTenantAccount(tx.db, tx.tenantId, id, 'update');
        if (!row) {
          const system = await cq.findSystemAccount(tx.db, id);
          if (system) throw new InvalidRequest(`${system.code} ${system.name} is an account of the system chart: it cannot be deactivated`, 'system_account');
          throw new NotFound('Account');
        }
        if (!row.active) return toAccountView(row);
        const children = await cq.activeChildren(tx.db, tx.tenantId, id);
        if (children.length > 0) {
          throw new Conflict(
            `${row.code} ${row.name} has ${children.length} active account(s) under it (${children.map((c) => c.code).join(', ')}): deactivate them first`,
            'account_has_children',
          );
        }
        return toAccountView(await cq.deactivateTenantAccount(tx.db, tx.tenantId, id, deps.clock.now()));
      }),

    /**
     * Loads the default restaurant chart into the SYSTEM chart (the bypass `system-chart-seed`): the codes
     * already there are left alone, so a second run adds nothing.
     */
    seedDefaultChart: () => seedChart(deps),

    // ---- journal

    /** A page of entries, newest competence date first; `status` filters. */
    listEntries: (t: TenantDb, input: ListJournalInput): Promise<JournalPageView> =>
      t.run(async (tx) => {
        const page = input.page ?? 1;
        const limit = input.limit ?? 20;
        const { rows, total } = await q.listEntries(tx.db, tx.tenantId, { status: input.status, offset: (page - 1) * limit, limit });
        const lines = await q.linesOf(tx.db, tx.tenantId, rows.map((r) => r.id));
        const byEntry = new Map<string, JournalLineRow[]>();
        for (const l of lines) byEntry.set(l.entryId, [...(byEntry.get(l.entryId) ?? []), l]);
        return { data: rows.map((r) => toEntryView(r, byEntry.get(r.id) ?? [])), total, page, totalPages: Math.ceil(total / limit) };
      }),

    /**
     * A draft entry: each line a debit or a credit (2 decimals), debits = credits to the cent, every
     * account active and analytic (400 naming the field); the month open (409 `period_closed`).
     */
    createEntry: (t: TenantDb, userId: string, input: CreateEntryInput): Promise<JournalEntryView> =>
      t.run(async (tx) => {
        const problems: FieldProblem[] = [];
        const amounts = input.lines.map((l, i) => {
          const debit = centsOf(l.debit ?? 0);
          const credit = centsOf(l.credit ?? 0);
          if (debit === null) problems.push({ field: `lines.${i}.debit`, message: 'has at most 2 decimals' });
          if (credit === null) problems.push({ field: `lines.${i}.credit`, message: 'has at most 2 decimals' });
          if (debit !== null && credit !== null && (debit > 0) === (credit > 0)) {
            problems.push({ field: `lines.${i}`, message: debit > 0 ? 'has both a debit and a credit: one of them only' : 'has neither a debit nor a credit' });
          }
          return { debit: debit ?? 0, credit: credit ?? 0 };
        });
        if (problems.length > 0) throw new Invalid(problems);
        const debits = amounts.reduce((s, a) => s + a.debit, 0);
        const credits = amounts.reduce((s, a) => s + a.credit, 0);
        if (debits !== credits) {
          throw new Invalid([{ field: 'lines', message: `do not balance: debits ${money(debits)}, credits ${money(credits)}` }], { code: 'unbalanced' });
        }
        const accounts = new Map<string, AnyAccount>();
        for (const a of await cq.accountsByIds(tx.db, tx.tenantId, [...new Set(input.lines.map((l) => l.accountId))])) accounts.set(a.id, a);
        const bad = input.lines.flatMap((l, i) => {
          const why = unusable(accounts.get(l.accountId));
          return why ? [{ field: `lines.${i}.accountId`, message: why }] : [];
        });
        if (bad.length > 0) throw new Invalid(bad);
        // The number first, then the period: see allocateNumber.
        const number = await allocateNumber(tx, input.competenceDate);
        await assertPeriodOpen(tx, input.competenceDate);
        const { entry, lines } = await writeEntry(
          tx,
          number,
          { competenceDate: input.competenceDate, description: input.description.trim(), status: 'draft', userId },
          input.lines.map((l, i) => ({
            account: accounts.get(l.accountId)!,
            debitCents: amounts[i]!.debit,
            creditCents: amounts[i]!.credit,
            memo: l.memo ?? null,
          })),
        );
        return toEntryView(entry, lines);
      }),

    /**
     * Posts a draft (409 `not_draft` otherwise; posted entries never change). The month must be open, and
     * every account still active (409 `account_inactive`: one was deactivated since the draft was made).
     */
    postEntry: (t: TenantDb, userId: string, id: string): Promise<JournalEntryView> =>
      t.run(async (tx) => {
        const entry = await q.lockEntry(tx.db, tx.tenantId, id);
        if (!entry) throw new NotFound('Journal entry');
        if (entry.status !== 'draft') throw new Conflict(`${entry.entryNumber} is ${entry.status}: only a draft can be posted`, 'not_draft');
        await assertPeriodOpen(tx, entry.competenceDate);
        const lines = await q.linesOf(tx.db, tx.tenantId, [id]);
        const accounts = new Map((await cq.accountsByIds(tx.db, tx.tenantId, lines.map((l) => l.accountId))).map((a) => [a.id, a]));
        const inactive = lines.filter((l) => unusable(accounts.get(l.accountId)) !== null);
        if (inactive.length > 0) {
          throw new Conflict(
            `${entry.entryNumber} names account(s) that no longer take entries: ${inactive.map((l) => `${l.accountCode} ${l.accountName}`).join(', ')}`,
            'account_inactive',
            inactive.map((l) => ({ field: `lines.${l.lineNo - 1}.accountId`, message: l.accountId })),
          );
        }
        const now = deps.clock.now();
        const posted = await q.updateEntry(tx.db, tx.tenantId, id, { status: 'posted', postedAt: now, postedBy: userId, updatedAt: now });
        return toEntryView(posted, lines);
      }),

    /**
     * Reverses a posted entry: a posted counter-entry on the original's competence date with debits and
     * credits swapped, `Estorno de JE-...: <reason>`, `reverses` set. The original stays `posted` with
     * `reversedBy` set: both count in the ledger and cancel out. 409 `not_posted`, `already_reversed`,
     * `reversal_entry` (a counter-entry is not reversed: post a new entry), `period_closed`.
     */
    reverseEntry: (t: TenantDb, userId: string, id: string, input: ReverseEntryInput): Promise<JournalEntryView> =>
      t.run(async (tx) => {
        const reason = input.reason.trim();
        const original = await q.lockEntry(tx.db, tx.tenantId, id);
        if (!original) throw new NotFound('Journal entry');
        if (original.status !== 'posted') throw new Conflict(`${original.entryNumber} is ${original.status}: only a posted entry can be reversed`, 'not_posted');
        if (original.reversedById) throw new Conflict(`${original.entryNumber} is reversed already`, 'already_reversed');
        if (original.reversesId) throw new Conflict(`${original.entryNumber} is itself a reversal: post a new entry instead`, 'reversal_entry');
        const competenceDate = original.competenceDate;
        await assertPeriodOpen(tx, original.competenceDate);
        await assertPeriodOpen(tx, competenceDate);
        const lines = await q.linesOf(tx.db, tx.tenantId, [id]);
        // The original's row is locked: a first close of its month waits for this transaction.
        const { entry, lines: counterLines } = await writeEntry(
          tx,
          await allocateNumber(tx, competenceDate),
          { competenceDate, description: `Estorno de ${original.entryNumber}: ${reason}`, status: 'posted', userId, reversesId: id, reversalReason: reason },
          lines.map((l) => ({
            account: { id: l.accountId, code: l.accountCode, name: l.accountName },
            debitCents: l.creditCents,
            creditCents: l.debitCents,
            memo: l.memo,
          })),
        );
        await q.updateEntry(tx.db, tx.tenantId, id, { reversedById: entry.id, reversalReason: reason, updatedAt: deps.clock.now() });
        return toEntryView(entry, counterLines);
      }),
  };
}
