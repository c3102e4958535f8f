import { newId } from '../../db/ids.js';
import type { TenantDb, TenantTx } from '../../db/scopes.js';
import { PAYMENT_METHODS, type PaymentMethod } from '../../db/schema/orders.js';
import type { CashMovementRow, ShiftRow } from '../../db/schema/shifts.js';
import type { TenantCtx } from '../../platform/auth/guards.js';
import type { Deps } from '../../platform/deps.js';
import { Conflict, Forbidden, Invalid, isUniqueViolation, NotFound } from '../../platform/domain-errors.js';
import type { BranchesService, PdvView } from '../branches/index.js';
import type { UsersService } from '../users/index.js';
import * as q from './shifts.queries.js';
import type {
  ActiveShiftView,
  CashMovementView,
  CloseShiftInput,
  ListShiftsInput,
  MovementInput,
  OpenShiftInput,
  PdvWithShiftView,
  ShiftPageView,
  ShiftReportView,
  ShiftView,
} from './shifts.schemas.js';

/** Cents per payment method, every method present. */
export type Amounts = Record<PaymentMethod, number>;

/**
 * Asked, inside the caller's transaction, what a shift took per method: the payments module answers with
 * its approved payments (amount + tip) linked to the shift, refunds left out. The shifts module does not
 * read the payments table (it belongs to the payments module, which depends on this one).
 */
export type ShiftTotalsSource = (tx: TenantTx, shiftId: string) => Promise<Partial<Record<string, number>>>;

const zero = (): Amounts => Object.fromEntries(PAYMENT_METHODS.map((m) => [m, 0])) as Amounts;
const sum = (a: Amounts) => PAYMENT_METHODS.reduce((n, m) => n + a[m], 0);
/** A stored jsonb of amounts as a full record (a method missing counts 0). */
const full = (stored: Partial<Record<string, number>> | null | undefined): Amounts => {
  const out = zero();
  for (const m of PAYMENT_METHODS) out[m] = Number(stored?.[m] ?? 0);
  return out;
};

const noBranchAccess = () => new Forbidden('You have no access to this branch', 'branch_scope');
const noPdvAccess = () => new Forbidden('You have no access to this point of sale', 'pdv_scope');
const ownShiftOnly = () => new Forbidden('Staff act only on their own shift', 'own_shift');
const shiftClosed = () => new Conflict('This shift is already closed', 'shift_closed');

/** What the caller may see of a branch: its PDVs (all of them, or a staff member's assigned ones). */
interface BranchAccess {
  pdvs: PdvView[];
  whole: boolean;
}

type Person = { _id: string; name: string; email: string };

function movementTotals(moves: CashMovementRow[]) {
  let additions = 0;
  let withdrawals = 0;
  for (const m of moves) {
    if (m.kind === 'addition') additions += m.amount;
    else withdrawals += m.amount;
  }
  return { additions, withdrawals };
}

/**
 * Cashier shifts (spec 2 "Shift", 4.10 shift routes): a shift at a PDV opened with a float, cash
 * movements ("sangria", "suprimento") while it is open, and the close against what its payments and
 * movements say the drawer and the other methods should hold. Orders and payments are linked to the
 * shift open at their PDV through `openShiftOf`.
 */
export function shiftsService(deps: Deps, { branches, users }: { branches: BranchesService; users: UsersService }) {
  const { clock } = deps;
  const totalsSources: ShiftTotalsSource[] = [];

  /** The money a shift took per method (approved payments, amount + tip), from the registered sources. */
  async function salesOf(tx: TenantTx, shiftId: string): Promise<Amounts> {
    const out = zero();
    for (const source of totalsSources) {
      for (const [method, cents] of Object.entries(await source(tx, shiftId))) {
        if (method in out) out[method as PaymentMethod] += Number(cents ?? 0);
      }
    }
    return out;
  }

  /** The cash the drawer should hold: the float, the cash taken (with tips, change given back) and the movements. */
  const expectedOf = (row: ShiftRow, sales: Amounts, moves: { additions: number; withdrawals: number }): Amounts => ({
    ...sales,
    cash: row.openingFloat + sales.cash + moves.additions - moves.withdrawals,
  });

  /**
   * The branch as the caller may see it: an admin (or superadmin, accountant) every PDV, a branch manager
   * or staff member assigned to the branch every PDV, other staff their assigned PDVs of it (403 when none);
   * a branch manager of other branches 403. NotFound when the tenant has no such branch.
   */
  async function access(tx: TenantTx, ctx: TenantCtx, branchId: string): Promise<BranchAccess> {
    const scope = ctx.branchScope;
    const whole = scope.all || scope.branchIds.includes(branchId);
    if (!whole && ctx.role !== 'staff') throw noBranchAccess();
    const pdvs = await branches.listBranchPdvs(tx, branchId);
    if (whole) return { pdvs, whole };
    const mine = pdvs.filter((p) => scope.pdvIds.includes(p._id));
    if (!mine.length) throw noBranchAccess();
    return { pdvs: mine, whole };
  }

  /** A shift of the branch at a PDV the caller may see (NotFound / Forbidden otherwise), optionally locked. */
  async function shiftIn(tx: TenantTx, ctx: TenantCtx, branchId: string, shiftId: string, lock = false) {
    const { pdvs } = await access(tx, ctx, branchId);
    const row = lock ? await q.lockShift(tx.db, tx.tenantId, shiftId) : await q.findShift(tx.db, tx.tenantId, shiftId);
    if (!row || row.branchId !== branchId) throw new NotFound('Shift');
    const pdv = pdvs.find((p) => p._id === row.pdvId);
    if (!pdv) throw noPdvAccess();
    return { row, pdv };
  }

  /** Names (as this tenant knows them) and e-mails of people; someone no longer a member keeps their account's. */
  async function people(tx: TenantTx, ids: (string | null)[]): Promise<Map<string, Person>> {
    const found = new Map<string, Person>();
    for (const id of new Set(ids.filter((i): i is string => i !== null))) {
      const member = await users.findMember(tx, id);
      const account = member ?? (await users.findById(id, tx.db));
      found.set(id, { _id: id, name: account?.name ?? '', email: account?.email ?? '' });
    }
    return found;
  }

  const personRef = (names: Map<string, Person>, id: string) => ({ _id: id, name: names.get(id)?.name ?? '' });

  function toShiftView(row: ShiftRow, pdv: { _id: string; name: string; slug: string }, names: Map<string, Person>): ShiftView {
    return {
      _id: row.id,
      pdv: { _id: pdv._id, name: pdv.name, slug: pdv.slug },
      branch: row.branchId,
      user: personRef(names, row.userId),
      openedBy: personRef(names, row.openedBy),
      startedAt: row.startedAt.toISOString(),
      openingFloat: row.openingFloat,
      status: row.status,
      closedAt: row.closedAt?.toISOString() ?? null,
      closedBy: row.closedBy ? personRef(names, row.closedBy) : null,
    };
  }

  function toMovementView(m: CashMovementRow, names: Map<string, Person>): CashMovementView {
    return {
      _id: m.id,
      shift: m.shiftId,
      kind: m.kind,
      amount: m.amount,
      reason: m.reason,
      createdBy: personRef(names, m.createdBy),
      createdAt: m.createdAt.toISOString(),
    };
  }

  function totalsOf(row: ShiftRow) {
    if (row.status !== 'closed') return null;
    const expected = sum(full(row.expected));
    const counted = sum(full(row.counted));
    return { expected, counted, difference: counted - expected };
  }

  /** The shift with its movements and, when closed, its closing report as stored at the close. */
  async function report(tx: TenantTx, row: ShiftRow, pdv: PdvView): Promise<ShiftReportView> {
    const moves = await q.movementsOfShift(tx.db, tx.tenantId, row.id);
    const names = await people(tx, [row.userId, row.openedBy, row.closedBy, ...moves.map((m) => m.createdBy)]);
    const cashMovements = movementTotals(moves);
    const closed = row.status === 'closed';
    const expected = closed ? full(row.expected) : null;
    return {
      ...toShiftView(row, pdv, names),
      notes: row.closingNotes,
      movements: moves.map((m) => toMovementView(m, names)),
      cashMovements,
      // What was sold is the expected amounts without the float and the movements (as they were at the close).
      sales: expected ? { ...expected, cash: expected.cash - row.openingFloat - cashMovements.additions + cashMovements.withdrawals } : null,
      expected,
      counted: closed ? full(row.counted) : null,
      difference: closed ? full(row.difference) : null,
      totals: totalsOf(row),
    };
  }

  const service = {
    /**
     * Registers where the money of a shift comes from (the payments module, at start): `source` runs
     * inside the transaction of a movement or a close and answers cents per method.
     */
    onTotals(source: ShiftTotalsSource) {
      totalsSources.push(source);
    },

    /**
     * The id of the shift open at the PDV now, or null; called inside the caller's transaction (an order
     * being created, a payment being recorded), it holds the shift until that transaction ends, so a close
     * running at the same moment counts what it links, or it finds the shift closed and links nothing.
     */
    openShiftOf: (t: TenantDb, pdvId: string): Promise<string | null> => t.run((tx) => q.openShiftIdOfPdv(tx.db, tx.tenantId, pdvId)),

    /** `GET /:id/pdvs`: the branch's PDVs the caller may see, each with the shift open at it. */
    pdvs: (ctx: TenantCtx, branchId: string): Promise<PdvWithShiftView[]> =>
      ctx.db.run(async (tx) => {
        const { pdvs } = await access(tx, ctx, branchId);
        const open = await q.openShiftsOfPdvs(tx.db, tx.tenantId, pdvs.map((p) => p._id));
        const names = await people(tx, open.map((s) => s.userId));
        return pdvs.map((p) => {
          const shift = open.find((s) => s.pdvId === p._id);
          return {
            ...p,
            activeShift: shift
              ? { _id: shift.id, user: personRef(names, shift.userId), startedAt: shift.startedAt.toISOString(), openingFloat: shift.openingFloat }
              : null,
          };
        });
      }),

    /** `GET /:id/shifts/active`: the open shifts of the branch's PDVs the caller may see, oldest first. */
    active: (ctx: TenantCtx, branchId: string): Promise<ActiveShiftView[]> =>
      ctx.db.run(async (tx) => {
        const { pdvs } = await access(tx, ctx, branchId);
        const open = await q.openShiftsOfPdvs(tx.db, tx.tenantId, pdvs.map((p) => p._id));
        const names = await people(tx, open.map((s) => s.userId));
        return open.map((s) => {
          const pdv = pdvs.find((p) => p._id === s.pdvId)!;
          const user = names.get(s.userId)!;
          return {
            _id: s.id,
            pdv: { _id: pdv._id, name: pdv.name, slug: pdv.slug },
            user,
            startedAt: s.startedAt.toISOString(),
            openingFloat: s.openingFloat,
            status: s.status,
          };
        });
      }),

    /**
     * `POST /:id/shifts/open`: a shift for `userId` (a member of the tenant; staff only themselves, at an
     * assigned PDV) at an active PDV of this branch (another branch's PDV: 403). One open shift per PDV:
     * the partial unique index decides between two opens at the same moment (409 `shift_open`).
     * `at`: the instant it started, instead of now (a past shift of the demo seed; no route passes it).
     */
    async open(ctx: TenantCtx, branchId: string, input: OpenShiftInput, { at }: { at?: Date } = {}): Promise<ShiftView> {
      try {
        return await ctx.db.run(async (tx) => {
          const { pdvs } = await access(tx, ctx, branchId);
          const pdv = await branches.findPdv(tx, input.pdvId);
          if (!pdv) throw new NotFound('PDV');
          if (pdv.branch !== branchId) throw new Forbidden('The point of sale does not belong to this branch', 'pdv_branch');
          if (!pdvs.some((p) => p._id === pdv._id)) throw noPdvAccess();
          if (ctx.role === 'staff' && input.userId !== ctx.user.id) throw new Forbidden('Staff open only their own shift', 'own_shift');
          if (!pdv.active) throw new Conflict('This point of sale is inactive', 'pdv_inactive');
          const branch = await branches.findBranch(tx, branchId);
          if (!branch?.active) throw new Conflict('This branch is inactive', 'branch_inactive');
          if (!(await users.findMember(tx, input.userId))) throw new Invalid('userId', 'is not a member of this restaurant');
          const row = await q.insertShift(tx.db, {
            tenantId: tx.tenantId,
            id: newId(),
            branchId,
            pdvId: pdv._id,
            userId: input.userId,
            openedBy: ctx.user.id,
            startedAt: at ?? clock.now(),
            openingFloat: input.openingFloat,
            ...(at ? { createdAt: at, updatedAt: at } : {}),
          });
          return toShiftView(row, pdv, await people(tx, [row.userId, row.openedBy]));
        });
      } catch (err) {
        if (isUniqueViolation(err, q.ONE_OPEN_KEY)) throw new Conflict('A shift is already open at this point of sale', 'shift_open');
        throw err;
      }
    },

    /**
     * `POST /:id/shifts/:shiftId/movements`: cash taken out ("sangria") or put in ("suprimento") of an open
     * shift, with who did it. The shift row is locked, so two withdrawals at once cannot both take the
     * same cash: a withdrawal above the cash expected in the drawer is 409 `insufficient_cash`.
     */
    addMovement: (ctx: TenantCtx, branchId: string, shiftId: string, input: MovementInput): Promise<CashMovementView> =>
      ctx.db.run(async (tx) => {
        const { row } = await shiftIn(tx, ctx, branchId, shiftId, true);
        if (ctx.role === 'staff' && row.userId !== ctx.user.id) throw ownShiftOnly();
        if (row.status !== 'open') throw shiftClosed();
        if (input.kind === 'withdrawal') {
          const cash = expectedOf(row, await salesOf(tx, row.id), movementTotals(await q.movementsOfShift(tx.db, tx.tenantId, row.id))).cash;
          if (input.amount > cash) throw new Conflict(`The drawer should hold ${cash} cents of cash: less than the withdrawal`, 'insufficient_cash');
        }
        const movement = await q.insertMovement(tx.db, {
          tenantId: tx.tenantId,
          id: newId(),
          shiftId: row.id,
          kind: input.kind,
          amount: input.amount,
          reason: input.reason.trim(),
          createdBy: ctx.user.id,
          createdAt: clock.now(),
        });
        return toMovementView(movement, await people(tx, [movement.createdBy]));
      }),

    /**
     * `POST /:id/shifts/:shiftId/close`: the count against what is expected per method, stored with the
     * shift. The row is locked first: of two closes at once one wins, the other finds it closed (409).
     * `at`: the instant it closed, instead of now (a past shift of the demo seed; no route passes it).
     */
    close: (ctx: TenantCtx, branchId: string, shiftId: string, input: CloseShiftInput, { at }: { at?: Date } = {}): Promise<ShiftReportView> =>
      ctx.db.run(async (tx) => {
        const { row, pdv } = await shiftIn(tx, ctx, branchId, shiftId, true);
        if (ctx.role === 'staff' && row.userId !== ctx.user.id) throw ownShiftOnly();
        if (row.status !== 'open') throw shiftClosed();
        const sales = await salesOf(tx, row.id);
        const expected = expectedOf(row, sales, movementTotals(await q.movementsOfShift(tx.db, tx.tenantId, row.id)));
        const counted = full(input.counted);
        const difference = zero();
        for (const m of PAYMENT_METHODS) difference[m] = counted[m] - expected[m];
        const closed = await q.closeShift(tx.db, tx.tenantId, row.id, {
          closedAt: at ?? clock.now(),
          closedBy: ctx.user.id,
          counted,
          expected,
          difference,
          closingNotes: input.notes?.trim() || null,
        });
        return report(tx, closed, pdv);
      }),

    /** `GET /:id/shifts/:shiftId`: the shift, its movements, and its closing report once closed. */
    get: (ctx: TenantCtx, branchId: string, shiftId: string): Promise<ShiftReportView> =>
      ctx.db.run(async (tx) => {
        const { row, pdv } = await shiftIn(tx, ctx, branchId, shiftId);
        return report(tx, row, pdv);
      }),

    /** `GET /:id/shifts`: the branch's shifts at the PDVs the caller may see, newest first, a page at a time. */
    list: (ctx: TenantCtx, branchId: string, query: ListShiftsInput): Promise<ShiftPageView> =>
      ctx.db.run(async (tx) => {
        const { pdvs, whole } = await access(tx, ctx, branchId);
        const page = query.page ?? 1;
        const limit = query.limit ?? 20;
        const { rows, total } = await q.listShifts(tx.db, tx.tenantId, {
          branchId,
          pdvIds: whole ? null : pdvs.map((p) => p._id),
          offset: (page - 1) * limit,
          limit,
        });
        const names = await people(tx, rows.flatMap((r) => [r.userId, r.openedBy, r.closedBy]));
        const data = rows.map((r) => {
          const pdv = pdvs.find((p) => p._id === r.pdvId) ?? { _id: r.pdvId, name: '', slug: '' };
          return { ...toShiftView(r, pdv, names), totals: totalsOf(r) };
        });
        return { data, total, page, totalPages: Math.ceil(total / limit) };
      }),
  };
  return service;
}

export type ShiftsService = ReturnType<typeof shiftsService>;
