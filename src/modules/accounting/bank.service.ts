import { newId } from '../../db/ids.js';
import type { BankAccountRow, BankStatementLineRow } from '../../db/schema/accounting.js';
import type { TenantDb } from '../../db/scopes.js';
import { Conflict, Invalid, NotFound, isUniqueViolation } from '../../platform/domain-errors.js';
import { pageWindow } from '../../platform/pagination.js';
import type { AccountingParts } from './accounting.service.js';
import { parseCsv } from './bank.csv.js';
import { looksLikeOfx, parseOfx } from './bank.ofx.js';
import * as q from './bank.queries.js';
import {
  STATEMENT_PAGE,
  type AutoMatchView,
  type BankAccountView,
  type CreateBankAccountInput,
  type IgnoreInput,
  type ImportResultView,
  type MatchInput,
  type StatementInput,
  type StatementLineView,
} from './bank.schemas.js';
import { decodeText, StatementError, type ParsedStatement } from './bank.statement.js';
import type { BookAccount } from './books.js';
import * as cq from './chart.queries.js';

/** Largest statement file, bytes (the route's multipart limit). */
export const MAX_STATEMENT_BYTES = 2 * 1024 * 1024;
/** Auto-match pairs a line with an entry dated at most this many days before or after it. */
export const MATCH_WINDOW_DAYS = 3;

/** The multipart field `file` is in the body, though the route declares no body schema. */
const FILE = { in: 'body' } as const;

const units = (cents: number) => cents / 100;
const dayNumber = (date: string) => Date.parse(`${date}T00:00:00Z`) / 86_400_000;
/** Digits of an account number or code, without leading zeros. */
const digits = (s: string) => s.replace(/\D/g, '').replace(/^0+/, '');

/**
 * Whether an OFX file's BANKACCTFROM names this bank account. The bank: compared only when the account's
 * `bank` is a numeric code (0237 = 237). The account number, digits only: the same, or the file's ends
 * with it (banks that put the agency first), or the file's is the account without its check digit.
 */
export function sameAccount(bank: Pick<BankAccountRow, 'bank' | 'account'>, file: { bankId: string | null; acctId: string }): boolean {
  const code = /^\d+$/.test(bank.bank.trim()) ? digits(bank.bank) : null;
  if (code !== null && file.bankId && /\d/.test(file.bankId) && digits(file.bankId) !== code) return false;
  const own = digits(bank.account);
  const theirs = digits(file.acctId);
  if (own === '' || theirs === '') return false;
  if (theirs === own || (own.length >= 4 && theirs.endsWith(own))) return true;
  const withoutCheck = bank.account.includes('-') ? digits(bank.account.slice(0, bank.account.lastIndexOf('-'))) : null;
  return withoutCheck !== null && withoutCheck !== '' && theirs === withoutCheck;
}

type JoinedEntry = { id: string | null; entryNumber: string | null; competenceDate: string | null; description: string | null } | null;

function toLineView(l: BankStatementLineRow, entry: JoinedEntry): StatementLineView {
  return {
    _id: l.id,
    date: l.postedDate,
    amount: units(l.amountCents),
    description: l.description,
    fitId: l.fitId,
    status: l.status,
    matchedEntry: entry?.id ? { _id: entry.id, entryNumber: entry.entryNumber!, competenceDate: entry.competenceDate!, description: entry.description! } : null,
    matchedAt: l.matchedAt ? l.matchedAt.toISOString() : null,
    ignoredReason: l.ignoredReason,
    importId: l.importId,
  };
}

/**
 * Bank accounts, statement imports (OFX, CSV) and reconciliation (spec 4.11 `/bank`). docs/decisions.md,
 * "Accounting: receivables and bank".
 */
export function bankPart({ deps, books }: AccountingParts) {
  const toAccountView = (row: BankAccountRow, ledger: BookAccount | undefined, unmatched: number): BankAccountView => ({
    _id: row.id,
    name: row.name,
    bank: row.bank,
    agency: row.agency,
    account: row.account,
    type: row.type,
    ledgerAccount: ledger ?? { id: row.ledgerAccountId, code: '', name: '' },
    active: row.active,
    unmatchedLines: unmatched,
    createdAt: row.createdAt.toISOString(),
  });

  const lineView = async (db: TenantDb, row: BankStatementLineRow) =>
    db.run(async (tx) => {
      const [found] = await q.statementLines(tx.db, tx.tenantId, row.bankAccountId, { lineId: row.id });
      return toLineView(found!.line, found!.entry);
    });

  return {
    /** The tenant's bank accounts by name, each with its ledger account and its unmatched statement lines. */
    listBankAccounts: (t: TenantDb): Promise<BankAccountView[]> =>
      t.run(async (tx) => {
        const rows = await q.listBankAccounts(tx.db, tx.tenantId);
        const ledgers = new Map((await cq.accountsByIds(tx.db, tx.tenantId, [...new Set(rows.map((r) => r.account.ledgerAccountId))])).map((a) => [a.id, a]));
        return rows.map((r) => {
          const a = ledgers.get(r.account.ledgerAccountId);
          return toAccountView(r.account, a ? { id: a.id, code: a.code, name: a.name } : undefined, Number(r.unmatched));
        });
      }),

    /**
     * A bank account: its ledger account an active analytic ativo account (default the `bank` posting key,
     * bancos conta movimento); bank, agency and account unique for the tenant (409 `bank_account_exists`).
     */
    createBankAccount: async (t: TenantDb, input: CreateBankAccountInput): Promise<BankAccountView> => {
      await books.ensureDefaultChart();
      return t.run(async (tx) => {
        let ledger: BookAccount;
        if (input.ledgerAccountId) {
          const [a] = await cq.accountsByIds(tx.db, tx.tenantId, [input.ledgerAccountId]);
          if (!a) throw new Invalid('ledgerAccountId', 'is not an account of this chart');
          if (!a.active || a.type !== 'analitica' || a.nature !== 'ativo') {
            throw new Invalid('ledgerAccountId', `is ${a.code} ${a.name}: an active analytic asset (ativo) account is needed`);
          }
          ledger = { id: a.id, code: a.code, name: a.name };
        } else {
          ledger = await books.accountFor(tx, 'bank');
        }
        const now = deps.clock.now();
        const [bank, agency, account] = [input.bank.trim(), input.agency.trim(), input.account.trim()];
        try {
          const row = await tx.db.transaction((sp) =>
            q.insertBankAccount(sp, {
              tenantId: tx.tenantId,
              id: newId(),
              name: input.name.trim(),
              bank,
              agency,
              account,
              type: input.type,
              ledgerAccountId: ledger.id,
              active: true,
              createdAt: now,
              updatedAt: now,
            }),
          );
          return toAccountView(row, ledger, 0);
        } catch (err) {
          if (isUniqueViolation(err, 'bank_accounts_number_key')) {
            throw new Conflict(`The account ${bank} ${agency} ${account} is registered already`, 'bank_account_exists');
          }
          throw err;
        }
      });
    },

    /**
     * Imports a statement file (OFX 1.x SGML or 2.x XML, or CSV) into a bank account. Lines are keyed by the
     * bank's transaction id: a line already there is counted as a duplicate and not added (the unique index
     * decides, so two imports of one file at once add each line once). An OFX file of another account or a
     * credit-card statement is 400 and adds nothing.
     */
    importStatement: (t: TenantDb, userId: string, bankAccountId: string, file: { name: string | null; bytes: Buffer }): Promise<ImportResultView> =>
      t.run(async (tx) => {
        const bank = await q.findBankAccount(tx.db, tx.tenantId, bankAccountId);
        if (!bank) throw new NotFound('Bank account');
        const text = decodeText(file.bytes);
        let parsed: ParsedStatement;
        try {
          parsed = looksLikeOfx(text) ? parseOfx(text) : parseCsv(text);
        } catch (err) {
          if (err instanceof StatementError) throw new Invalid('file', err.message, { ...FILE, code: err.code });
          throw err;
        }
        const foreign = parsed.accounts.filter((a) => !sameAccount(bank, a));
        if (foreign.length > 0) {
          const named = foreign.map((a) => `${a.bankId ? `bank ${a.bankId} ` : ''}account ${a.acctId}`).join(', ');
          throw new Invalid('file', `is the statement of ${named}, not of ${bank.bank} ${bank.agency} ${bank.account}`, { ...FILE, code: 'wrong_account' });
        }
        const importId = newId();
        const now = deps.clock.now();
        const seen = new Set<string>();
        const rows = parsed.lines
          .filter((l) => (seen.has(l.fitId) ? false : (seen.add(l.fitId), true)))
          .map((l) => ({
            tenantId: tx.tenantId,
            id: newId(),
            bankAccountId,
            importId,
            fitId: l.fitId,
            postedDate: l.date,
            amountCents: l.amountCents,
            description: l.description,
            status: 'unmatched' as const,
            createdAt: now,
            updatedAt: now,
          }));
        const added = await q.insertLines(tx.db, rows);
        await q.insertImport(tx.db, {
          tenantId: tx.tenantId,
          id: importId,
          bankAccountId,
          fileName: file.name ? file.name.slice(0, 255) : null,
          format: parsed.format,
          linesRead: parsed.read,
          linesAdded: added,
          createdBy: userId,
          createdAt: now,
        });
        return { importId, format: parsed.format, linesRead: parsed.read, linesAdded: added, duplicates: parsed.lines.length - added, skipped: parsed.skipped };
      }),

    /** The statement lines of a bank account by date; `status`, `from`, `to` filter. */
    /** One page (STATEMENT_PAGE) of them, and the number of matching lines. */
    statement: (t: TenantDb, bankAccountId: string, input: StatementInput): Promise<{ lines: StatementLineView[]; total: number }> =>
      t.run(async (tx) => {
        const bank = await q.findBankAccount(tx.db, tx.tenantId, bankAccountId);
        if (!bank) throw new NotFound('Bank account');
        const filter = { status: input.status, from: input.from, to: input.to };
        const { rows, total } = await q.statementPage(tx.db, tx.tenantId, bankAccountId, filter, pageWindow(input, STATEMENT_PAGE));
        return { lines: rows.map((r) => toLineView(r.line, r.entry)), total };
      }),

    /**
     * Pairs the unmatched lines with posted entries (neither reversed nor reversals) whose net movement on
     * the bank's ledger account equals the line (a credit on the statement = a debit on the account) and
     * whose date is at most 3 days from the line's. Each entry once: the nearest dates first, then the
     * earliest line, the earliest entry, the lowest entry number.
     */
    autoMatch: (t: TenantDb, userId: string, bankAccountId: string): Promise<AutoMatchView> =>
      t.run(async (tx) => {
        const bank = await q.findBankAccount(tx.db, tx.tenantId, bankAccountId);
        if (!bank) throw new NotFound('Bank account');
        await q.lockLedger(tx.db, tx.tenantId, bank.ledgerAccountId);
        const lines = await q.unmatchedLines(tx.db, tx.tenantId, bankAccountId);
        if (lines.length === 0) return { matched: 0, unmatched: 0, pairs: [] };
        const dates = lines.map((l) => l.postedDate).sort();
        const shift = (date: string, days: number) => new Date((dayNumber(date) + days) * 86_400_000).toISOString().slice(0, 10);
        const [from, to] = [shift(dates[0]!, -MATCH_WINDOW_DAYS), shift(dates.at(-1)!, MATCH_WINDOW_DAYS)];
        const entries = await q.candidateEntries(tx.db, tx.tenantId, bank.ledgerAccountId, from, to);
        const byAmount = new Map<number, typeof entries>();
        for (const e of entries) byAmount.set(e.net, [...(byAmount.get(e.net) ?? []), e]);
        const candidates = lines.flatMap((line) =>
          (byAmount.get(line.amountCents) ?? []).flatMap((entry) => {
            const distance = Math.abs(dayNumber(entry.competenceDate) - dayNumber(line.postedDate));
            return distance <= MATCH_WINDOW_DAYS ? [{ line, entry, distance }] : [];
          }),
        );
        const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
        candidates.sort(
          (a, b) =>
            a.distance - b.distance ||
            cmp(a.line.postedDate, b.line.postedDate) ||
            cmp(a.line.fitId, b.line.fitId) ||
            cmp(a.entry.competenceDate, b.entry.competenceDate) ||
            cmp(a.entry.entryNumber, b.entry.entryNumber),
        );
        const usedLines = new Set<string>();
        const usedEntries = new Set<string>();
        const pairs: AutoMatchView['pairs'] = [];
        const now = deps.clock.now();
        for (const c of candidates) {
          if (usedLines.has(c.line.id) || usedEntries.has(c.entry.id)) continue;
          try {
            await tx.db.transaction((sp) =>
              q.updateLine(sp, tx.tenantId, c.line.id, { status: 'matched', matchedEntryId: c.entry.id, matchedAt: now, matchedBy: userId, ignoredReason: null, updatedAt: now }),
            );
          } catch (err) {
            // Matched meanwhile to a line of a bank account on another ledger account: leave it.
            if (isUniqueViolation(err, 'bank_statement_lines_entry_key')) continue;
            throw err;
          }
          usedLines.add(c.line.id);
          usedEntries.add(c.entry.id);
          pairs.push({
            lineId: c.line.id,
            date: c.line.postedDate,
            amount: units(c.line.amountCents),
            entryId: c.entry.id,
            entryNumber: c.entry.entryNumber,
            competenceDate: c.entry.competenceDate,
          });
        }
        pairs.sort((a, b) => cmp(a.date, b.date) || cmp(a.entryNumber, b.entryNumber));
        return { matched: pairs.length, unmatched: lines.length - pairs.length, pairs };
      }),

    /**
     * Matches an unmatched line with a posted entry that has a line on the bank's ledger account, whatever
     * the amounts and dates (the person decides). 409 when the line is not unmatched or the entry is matched
     * to another line.
     */
    matchLine: async (t: TenantDb, userId: string, bankAccountId: string, lineId: string, input: MatchInput): Promise<StatementLineView> => {
      const row = await t.run(async (tx) => {
        const bank = await q.findBankAccount(tx.db, tx.tenantId, bankAccountId);
        if (!bank) throw new NotFound('Bank account');
        await q.lockLedger(tx.db, tx.tenantId, bank.ledgerAccountId);
        const line = await q.lockLine(tx.db, tx.tenantId, bankAccountId, lineId);
        if (!line) throw new NotFound('Statement line');
        if (line.status !== 'unmatched') throw new Conflict(`The line is ${line.status}: unmatch it first`, 'line_not_unmatched');
        const found = await q.entryOnLedger(tx.db, tx.tenantId, input.entryId, bank.ledgerAccountId);
        if (!found) throw new Invalid('entryId', 'is not a journal entry of this tenant');
        if (found.entry.status !== 'posted') throw new Conflict(`${found.entry.entryNumber} is ${found.entry.status}: only posted entries are matched`, 'entry_not_posted');
        if (!found.touches) throw new Invalid('entryId', `${found.entry.entryNumber} has no line on the bank account's ledger account`);
        const other = await q.lineMatchedTo(tx.db, tx.tenantId, input.entryId);
        if (other) throw new Conflict(`${found.entry.entryNumber} is matched to another statement line`, 'entry_matched', [{ field: 'lineId', message: other.id }]);
        const now = deps.clock.now();
        try {
          return await tx.db.transaction((sp) =>
            q.updateLine(sp, tx.tenantId, lineId, { status: 'matched', matchedEntryId: input.entryId, matchedAt: now, matchedBy: userId, ignoredReason: null, updatedAt: now }),
          );
        } catch (err) {
          if (isUniqueViolation(err, 'bank_statement_lines_entry_key')) throw new Conflict(`${found.entry.entryNumber} is matched to another statement line`, 'entry_matched');
          throw err;
        }
      });
      return lineView(t, row);
    },

    /** An unmatched line set aside (a bank fee booked elsewhere, a transfer between own accounts); 409 when it is matched. */
    ignoreLine: async (t: TenantDb, userId: string, bankAccountId: string, lineId: string, input: IgnoreInput): Promise<StatementLineView> => {
      const row = await t.run(async (tx) => {
        const bank = await q.findBankAccount(tx.db, tx.tenantId, bankAccountId);
        if (!bank) throw new NotFound('Bank account');
        const line = await q.lockLine(tx.db, tx.tenantId, bankAccountId, lineId);
        if (!line) throw new NotFound('Statement line');
        if (line.status === 'matched') throw new Conflict('The line is matched: unmatch it first', 'line_matched');
        const now = deps.clock.now();
        const reason = input.reason?.trim() || null;
        return q.updateLine(tx.db, tx.tenantId, lineId, { status: 'ignored', ignoredReason: reason, matchedBy: userId, matchedAt: now, matchedEntryId: null, updatedAt: now });
      });
      return lineView(t, row);
    },

    /** Back to unmatched, from matched or ignored (an unmatched line answers as it is). */
    unmatchLine: async (t: TenantDb, bankAccountId: string, lineId: string): Promise<StatementLineView> => {
      const row = await t.run(async (tx) => {
        const bank = await q.findBankAccount(tx.db, tx.tenantId, bankAccountId);
        if (!bank) throw new NotFound('Bank account');
        const line = await q.lockLine(tx.db, tx.tenantId, bankAccountId, lineId);
        if (!line) throw new NotFound('Statement line');
        if (line.status === 'unmatched') return line;
        const now = deps.clock.now();
        return q.updateLine(tx.db, tx.tenantId, lineId, { status: 'unmatched', matchedEntryId: null, matchedAt: null, matchedBy: null, ignoredReason: null, updatedAt: now });
      });
      return lineView(t, row);
    },
  };
}
