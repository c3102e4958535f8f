import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { and, eq, gte, lt } from 'drizzle-orm';
import { journalEntries, journalLines } from '../../db/schema/accounting.js';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeTenantWithTeam } from '../../../test/factories.js';
import { Rng } from '../../../test/rng.js';

/**
 * The books under random sequences (issue 14). Each sequence works in a year of its own of one of a few
 * tenants (so sequences never see each other and nothing is reset), on four accounts (caixa, fornecedores,
 * receita, despesa) and two months, with 4 to 8 steps over HTTP among: create a draft (2 or 3 lines,
 * balanced), post a draft, reverse a posted entry, close a month, reopen a month, and now and then two of
 * these at once. A model of the books says what each step must answer when it runs alone: work dated in
 * a closed month is 409 `period_closed`, closing a closed month 409 `period_already_closed`, reopening an
 * open one 409 `period_not_closed`, everything else succeeds; a close's snapshot is the model's balancete.
 * Two steps at once may run in either order: each answer must be one of those orders' (a write accepted
 * in a month closed before the pair only when the other step reopened it). After each sequence:
 * 1. total debits = total credits over the posted entries (and per entry), and the entries in the
 *    database are the model's (drafts and posted, by count);
 * 2. the balancete of each month is the model's, and sums to zero (debit-natured balances = credit-natured);
 * 3. nothing was posted, reversed or created in a month while it was closed (checked at every step above);
 * 4. every closed month's snapshot equals its balancete recomputed now, and the periods list is the model's.
 *
 * A failure prints the sequence's seed and steps. Replay it with
 *   ACCOUNTING_PROPERTY_SEED=<seed> ACCOUNTING_PROPERTY_RUNS=1 npx vitest run src/modules/accounting/accounting.property.test.ts
 * ACCOUNTING_PROPERTY_RUNS sets the number of sequences (default 500); ACCOUNTING_PROPERTY_VERBOSE=1 prints every sequence.
 */

const RUNS = Number(process.env.ACCOUNTING_PROPERTY_RUNS ?? 500);
const SEED_ENV = process.env.ACCOUNTING_PROPERTY_SEED;
const BASE_SEED = SEED_ENV !== undefined ? Number(SEED_ENV) >>> 0 : (Date.now() ^ (Math.random() * 2 ** 32)) >>> 0;
const VERBOSE = Boolean(process.env.ACCOUNTING_PROPERTY_VERBOSE);
/** Years 2000-2099 per tenant: one year per sequence. */
const YEARS = 100;
const MONTHS = [1, 2] as const;

class PropertyFailure extends Error {}

// ---- the world: a few tenants with four accounts each

interface Account {
  id: string;
  code: string;
  nature: 'ativo' | 'passivo' | 'receita' | 'despesa';
}
interface Books {
  tenantId: string;
  slug: string;
  headers: { authorization: string };
  accounts: Account[];
}

let t: TestApp;
const world: Books[] = [];

beforeAll(async () => {
  t = await createTestApp();
  for (let i = 0; i < Math.max(1, Math.ceil(RUNS / YEARS)); i++) {
    const team = await makeTenantWithTeam(t.app);
    const accounts: Account[] = [];
    for (const [code, nature] of [['7.1', 'ativo'], ['7.2', 'passivo'], ['7.3', 'receita'], ['7.4', 'despesa']] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/t/${team.slug}/accounting/chart`,
        headers: team.admin.headers,
        payload: { code, name: `Conta ${code}`, nature, type: 'analitica', normalBalance: nature === 'ativo' || nature === 'despesa' ? 'debit' : 'credit' },
      });
      expect(res.statusCode, res.body).toBe(201);
      accounts.push({ id: res.json()._id, code, nature });
    }
    world.push({ tenantId: team.tenant._id, slug: team.slug, headers: team.admin.headers, accounts });
  }
}, 120_000);
afterAll(() => t.close());

// ---- the model

interface Line {
  accountId: string;
  debitCents: number;
  creditCents: number;
}
interface ModelEntry {
  id: string;
  name: string;
  month: number;
  status: 'draft' | 'posted';
  reversed: boolean;
  isReversal: boolean;
  lines: Line[];
}
interface BalanceteRow {
  accountId: string;
  accountCode: string;
  accountName: string;
  nature: string;
  totalDebit: number;
  totalCredit: number;
  balance: number;
}
interface PeriodView {
  year: number;
  month: number;
  status: string;
  trialBalanceSnapshot: BalanceteRow[] | null;
}

type Op =
  | { kind: 'create'; month: number; lines: Line[] }
  | { kind: 'post'; entry: ModelEntry }
  | { kind: 'reverse'; entry: ModelEntry }
  | { kind: 'close'; month: number }
  | { kind: 'reopen'; month: number };

const monthOf = (op: Op) => (op.kind === 'post' || op.kind === 'reverse' ? op.entry.month : op.month);
const DEBIT_NATURES = ['ativo', 'custo', 'despesa'];

class Sequence {
  readonly log: string[] = [];
  readonly entries: ModelEntry[] = [];
  readonly closed = new Set<number>();
  /** Months closed at least once (listed even without entries). */
  readonly everClosed = new Set<number>();

  constructor(
    readonly rng: Rng,
    readonly books: Books,
    readonly year: number,
  ) {}

  fail(message: string): never {
    throw new PropertyFailure(message);
  }

  date(month: number) {
    return `${this.year}-${String(month).padStart(2, '0')}-${String(this.rng.int(1, 28)).padStart(2, '0')}`;
  }

  /** A random operation the model can name; `avoid` keeps a pair's two steps off one entry. */
  pick(avoid?: ModelEntry): Op {
    const drafts = this.entries.filter((e) => e.status === 'draft' && e !== avoid);
    const reversible = this.entries.filter((e) => e.status === 'posted' && !e.reversed && !e.isReversal && e !== avoid);
    const kind = this.rng.weighted({ create: 30, post: drafts.length ? 28 : 0, reverse: reversible.length ? 14 : 0, close: 16, reopen: 10 });
    if (kind === 'post') return { kind, entry: this.rng.pick(drafts) };
    if (kind === 'reverse') return { kind, entry: this.rng.pick(reversible) };
    if (kind === 'close' || kind === 'reopen') return { kind, month: this.rng.pick(MONTHS) };
    const accounts = [...this.books.accounts];
    const debit = accounts.splice(this.rng.int(0, accounts.length - 1), 1)[0];
    const credit = accounts.splice(this.rng.int(0, accounts.length - 1), 1)[0];
    const cents = this.rng.int(1, 500_000);
    const lines: Line[] = [{ accountId: debit.id, debitCents: cents, creditCents: 0 }];
    if (cents > 1 && this.rng.chance(0.3)) {
      const part = this.rng.int(1, cents - 1);
      lines.push({ accountId: credit.id, debitCents: 0, creditCents: part }, { accountId: accounts[0].id, debitCents: 0, creditCents: cents - part });
    } else lines.push({ accountId: credit.id, debitCents: 0, creditCents: cents });
    return { kind: 'create', month: this.rng.pick(MONTHS), lines };
  }

  describe(op: Op) {
    const code = (id: string) => this.books.accounts.find((a) => a.id === id)!.code;
    if (op.kind === 'create') return `create ${this.year}-${op.month} ${op.lines.map((l) => `${code(l.accountId)} ${l.debitCents ? 'D' : 'C'}${l.debitCents || l.creditCents}`).join(' ')}`;
    if (op.kind === 'post' || op.kind === 'reverse') return `${op.kind} ${op.entry.name} (${this.year}-${op.entry.month})`;
    return `${op.kind} ${this.year}-${op.month}`;
  }

  send(op: Op): Promise<LightMyRequestResponse> {
    const base = `/t/${this.books.slug}/accounting`;
    const post = (url: string, payload?: object) => t.app.inject({ method: 'POST', url: `${base}${url}`, headers: this.books.headers, payload });
    switch (op.kind) {
      case 'create':
        return post('/journal', {
          competenceDate: this.date(op.month),
          description: 'Lançamento de teste',
          lines: op.lines.map((l) => ({ accountId: l.accountId, ...(l.debitCents ? { debit: l.debitCents / 100 } : { credit: l.creditCents / 100 }) })),
        });
      case 'post':
        return post(`/journal/${op.entry.id}/post`);
      case 'reverse':
        return post(`/journal/${op.entry.id}/reverse`, { reason: 'teste' });
      case 'close':
        return post('/ledger/close', { year: this.year, month: op.month });
      case 'reopen':
        return post('/ledger/reopen', { year: this.year, month: op.month });
    }
  }

  /** The answer an operation must get when it runs alone on the model's state: a status and a code. */
  expected(op: Op): { ok: boolean; code?: string } {
    const closed = this.closed.has(monthOf(op));
    if (op.kind === 'close') return closed ? { ok: false, code: 'period_already_closed' } : { ok: true };
    if (op.kind === 'reopen') return closed ? { ok: true } : { ok: false, code: 'period_not_closed' };
    return closed ? { ok: false, code: 'period_closed' } : { ok: true };
  }

  /** Brings the model up to an accepted operation. */
  apply(op: Op, res: LightMyRequestResponse) {
    const body = res.json();
    switch (op.kind) {
      case 'create':
        this.entries.push({ id: body._id, name: body.entryNumber, month: op.month, status: 'draft', reversed: false, isReversal: false, lines: op.lines });
        if (body.status !== 'draft') this.fail(`a new entry is ${body.status}`);
        break;
      case 'post':
        op.entry.status = 'posted';
        if (body.status !== 'posted') this.fail(`${op.entry.name} posted, answered ${body.status}`);
        break;
      case 'reverse':
        op.entry.reversed = true;
        this.entries.push({
          id: body._id,
          name: body.entryNumber,
          month: op.entry.month,
          status: 'posted',
          reversed: false,
          isReversal: true,
          lines: op.entry.lines.map((l) => ({ accountId: l.accountId, debitCents: l.creditCents, creditCents: l.debitCents })),
        });
        if (body.competenceDate.slice(0, 7) !== `${this.year}-${String(op.entry.month).padStart(2, '0')}`) this.fail(`the counter-entry of ${op.entry.name} is dated ${body.competenceDate}`);
        break;
      case 'close':
        this.closed.add(op.month);
        this.everClosed.add(op.month);
        if (body.status !== 'closed') this.fail(`close answered ${body.status}`);
        break;
      case 'reopen':
        this.closed.delete(op.month);
        if (body.status !== 'reopened') this.fail(`reopen answered ${body.status}`);
        break;
    }
  }

  /** The balancete the model expects for a month, in the API's order (by code) and units. */
  balancete(month: number) {
    const sums = new Map<string, { d: number; c: number }>();
    for (const e of this.entries) {
      if (e.month !== month || e.status !== 'posted') continue;
      for (const l of e.lines) {
        const s = sums.get(l.accountId) ?? { d: 0, c: 0 };
        s.d += l.debitCents;
        s.c += l.creditCents;
        sums.set(l.accountId, s);
      }
    }
    return this.books.accounts
      .filter((a) => sums.has(a.id))
      .map((a) => {
        const { d, c } = sums.get(a.id)!;
        return { accountId: a.id, totalDebit: d / 100, totalCredit: c / 100, balance: (DEBIT_NATURES.includes(a.nature) ? d - c : c - d) / 100 };
      });
  }

  sameBalancete(rows: BalanceteRow[] | null, month: number, what: string) {
    const got = (rows ?? []).map((r) => ({ accountId: r.accountId, totalDebit: r.totalDebit, totalCredit: r.totalCredit, balance: r.balance }));
    const want = this.balancete(month);
    if (JSON.stringify(got) !== JSON.stringify(want)) this.fail(`${what}: ${JSON.stringify(got)}, the model's ${JSON.stringify(want)}`);
  }

  async step(n: number) {
    if (this.rng.chance(0.15)) return this.pair(n);
    const op = this.pick();
    const want = this.expected(op);
    const res = await this.send(op);
    const code = res.statusCode < 300 ? undefined : res.json().code;
    this.log.push(`${n}: ${this.describe(op)} -> ${res.statusCode}${code ? ` ${code}` : ''}`);
    if (want.ok) {
      if (res.statusCode !== 200 && res.statusCode !== 201) this.fail(`step ${n}: expected success, got ${res.statusCode} ${res.body}`);
      this.apply(op, res);
      // A close alone: its snapshot is the balancete of the month as the model has it.
      if (op.kind === 'close') this.sameBalancete(res.json().trialBalanceSnapshot, op.month, `step ${n}: the snapshot`);
    } else if (res.statusCode !== 409 || code !== want.code) {
      this.fail(`step ${n}: expected 409 ${want.code}, got ${res.statusCode} ${res.body}`);
    }
  }

  /** Two operations at once: each answer must be one some serial order gives. */
  async pair(n: number) {
    const a = this.pick();
    const b = this.pick(a.kind === 'post' || a.kind === 'reverse' ? a.entry : undefined);
    const closedBefore = new Set(this.closed);
    const [ra, rb] = await Promise.all([this.send(a), this.send(b)]);
    const results = [[a, ra, b], [b, rb, a]] as const;
    for (const [op, res, other] of results) {
      const code = res.statusCode < 300 ? undefined : res.json().code;
      this.log.push(`${n}: (at once) ${this.describe(op)} -> ${res.statusCode}${code ? ` ${code}` : ''}`);
      const month = monthOf(op);
      const otherSameMonth = monthOf(other) === month;
      const wasClosed = closedBefore.has(month);
      const accepted = res.statusCode === 200 || res.statusCode === 201;
      const allowed = (() => {
        if (op.kind === 'close') return accepted ? !wasClosed || (otherSameMonth && other.kind === 'reopen') : code === 'period_already_closed' && (wasClosed || (otherSameMonth && other.kind === 'close'));
        if (op.kind === 'reopen') return accepted ? wasClosed || (otherSameMonth && other.kind === 'close') : code === 'period_not_closed' && (!wasClosed || (otherSameMonth && other.kind === 'reopen'));
        // A write: accepted in a month closed before only if the other step reopened it; refused only if closed by then.
        return accepted ? !wasClosed || (otherSameMonth && other.kind === 'reopen') : code === 'period_closed' && (wasClosed || (otherSameMonth && other.kind === 'close'));
      })();
      if (!allowed) this.fail(`step ${n}: ${this.describe(op)} at once with ${this.describe(other)} answered ${res.statusCode} ${res.body}`);
    }
    // The model follows what happened: a write, then the period changes (a write accepted beside a close
    // of its month committed before it, or the final snapshot check fails).
    for (const [op, res] of results) if ((res.statusCode === 200 || res.statusCode === 201) && op.kind !== 'close' && op.kind !== 'reopen') this.apply(op, res);
    const periodOps = results.filter(([op, res]) => (res.statusCode === 200 || res.statusCode === 201) && (op.kind === 'close' || op.kind === 'reopen'));
    // Close and reopen of one month both accepted: whichever ran last decides; the periods list tells.
    for (const [op, res] of periodOps) this.apply(op, res);
    if (periodOps.length === 2 && monthOf(periodOps[0][0]) === monthOf(periodOps[1][0]) && periodOps[0][0].kind !== periodOps[1][0].kind) {
      const month = monthOf(periodOps[0][0]);
      const now = (await this.get<PeriodView[]>('/ledger/periods')).find((p) => p.year === this.year && p.month === month);
      if (now?.status === 'closed') this.closed.add(month);
      else this.closed.delete(month);
    }
  }

  async get<T>(path: string): Promise<T> {
    const res = await t.app.inject({ method: 'GET', url: `/t/${this.books.slug}/accounting${path}`, headers: this.books.headers });
    if (res.statusCode !== 200) this.fail(`GET ${path}: ${res.statusCode} ${res.body}`);
    return res.json() as T;
  }

  async check() {
    // 1. Debits = credits over the posted entries of the year, each entry balanced; the entries are the model's.
    const { start, next } = { start: `${this.year}-01-01`, next: `${this.year + 1}-01-01` };
    const rows = await t.app.deps.tenantDb(this.books.tenantId).run((tx) =>
      tx.db
        .select({ id: journalEntries.id, status: journalEntries.status, debit: journalLines.debitCents, credit: journalLines.creditCents })
        .from(journalLines)
        .innerJoin(journalEntries, and(eq(journalEntries.tenantId, journalLines.tenantId), eq(journalEntries.id, journalLines.entryId)))
        .where(and(eq(journalEntries.tenantId, this.books.tenantId), gte(journalEntries.competenceDate, start), lt(journalEntries.competenceDate, next))),
    );
    const perEntry = new Map<string, { status: string; d: number; c: number }>();
    for (const r of rows) {
      const e = perEntry.get(r.id) ?? { status: r.status, d: 0, c: 0 };
      e.d += r.debit;
      e.c += r.credit;
      perEntry.set(r.id, e);
    }
    let debits = 0;
    let credits = 0;
    for (const [id, e] of perEntry) {
      if (e.d !== e.c) this.fail(`entry ${id}: debits ${e.d}, credits ${e.c}`);
      if (e.status === 'posted') {
        debits += e.d;
        credits += e.c;
      }
    }
    if (debits !== credits) this.fail(`posted debits ${debits}, credits ${credits}`);
    const count = (s: string) => [...perEntry.values()].filter((e) => e.status === s).length;
    const model = (s: string) => this.entries.filter((e) => e.status === s).length;
    if (count('draft') !== model('draft') || count('posted') !== model('posted') || perEntry.size !== this.entries.length) {
      this.fail(`the database holds ${count('draft')} drafts and ${count('posted')} posted of ${perEntry.size}; the model ${model('draft')} and ${model('posted')} of ${this.entries.length}`);
    }

    // 2. Each month's balancete is the model's and sums to zero.
    const balancetes = new Map<number, BalanceteRow[]>();
    for (const month of MONTHS) {
      const b = await this.get<BalanceteRow[]>(`/ledger/balancete?year=${this.year}&month=${month}`);
      balancetes.set(month, b);
      this.sameBalancete(b, month, `the balancete of ${this.year}-${month}`);
      const debitSide = b.filter((r) => DEBIT_NATURES.includes(r.nature)).reduce((s, r) => s + Math.round(r.balance * 100), 0);
      const creditSide = b.filter((r) => !DEBIT_NATURES.includes(r.nature)).reduce((s, r) => s + Math.round(r.balance * 100), 0);
      if (debitSide !== creditSide) this.fail(`the balancete of ${this.year}-${month} does not sum to zero: ${debitSide} vs ${creditSide}`);
    }

    // 4. The periods are the model's; a closed month's snapshot is its balancete now.
    const periods = (await this.get<PeriodView[]>('/ledger/periods')).filter((p) => p.year === this.year);
    const listed = MONTHS.filter((m) => this.everClosed.has(m) || this.entries.some((e) => e.month === m));
    const status = (m: number) => (this.closed.has(m) ? 'closed' : this.everClosed.has(m) ? 'reopened' : 'open');
    const got = periods.map((p) => `${p.month}:${p.status}`).join(' ');
    const want = listed.map((m) => `${m}:${status(m)}`).join(' ');
    if (got !== want) this.fail(`periods ${got}, the model's ${want}`);
    for (const p of periods) {
      if (p.status === 'closed' && JSON.stringify(p.trialBalanceSnapshot) !== JSON.stringify(balancetes.get(p.month))) {
        this.fail(`the snapshot of closed ${this.year}-${p.month} is not its balancete: ${JSON.stringify(p.trialBalanceSnapshot)} vs ${JSON.stringify(balancetes.get(p.month))}`);
      }
    }
  }
}

async function runSequence(i: number, seed: number) {
  const rng = new Rng(seed);
  const seq = new Sequence(rng, world[Math.floor(i / YEARS) % world.length], 2000 + (i % YEARS));
  try {
    const steps = rng.int(4, 8);
    for (let n = 0; n < steps; n++) await seq.step(n);
    await seq.check();
    if (VERBOSE) console.log(`sequence ${seed}\n${seq.log.map((l) => `  ${l}`).join('\n')}`);
  } catch (err) {
    const why = err instanceof PropertyFailure ? err.message : `${(err as Error).stack ?? String(err)}`;
    throw new Error(
      [
        `accounting property failed (sequence seed ${seed}, run seed ${BASE_SEED})`,
        `replay: ACCOUNTING_PROPERTY_SEED=${seed} ACCOUNTING_PROPERTY_RUNS=1 npx vitest run src/modules/accounting/accounting.property.test.ts`,
        why,
        'steps:',
        ...seq.log.map((l) => `  ${l}`),
      ].join('\n'),
      { cause: err },
    );
  }
}

describe('the books under random sequences (property)', () => {
  it(`keep debits = credits, balancetes at zero, closed months frozen and snapshots true over ${RUNS} sequences (seed ${BASE_SEED})`, async () => {
    for (let i = 0; i < RUNS; i++) await runSequence(i, (BASE_SEED + i) >>> 0);
  }, 600_000);
});
