import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../app.js';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makePdv, makeScopedTeam, makeSuperadmin, makeTenantWithTeam, makeUser } from '../../../test/factories.js';
import { expectTenantIsolation } from '../../../test/isolation.js';

/**
 * Cashier shift routes (spec 4.10): the branch's PDVs with their open shift, the open shifts, opening
 * (one per PDV, the PDV of the branch, the member), movements, closing, a shift and the history; who
 * may do what (roles, branch managers' branches, staff's PDVs), validation and tenant isolation.
 */
let t: TestApp;
let app: App;
beforeAll(async () => {
  t = await createTestApp();
  app = t.app;
});
afterAll(() => t.close());

type H = Record<string, string>;
const call = (method: 'GET' | 'POST' | 'PUT', url: string, headers: H = {}, payload?: object) => app.inject({ method, url, headers, payload: payload as never });

/** A tenant with a branch of two PDVs, another branch with one, staff assigned to the first PDV, a manager of the first branch. */
async function world() {
  const team = await makeScopedTeam(app);
  const { main, other, manager, otherManager } = team;
  const base = `/api/t/${team.slug}/admin/branches/${main.branchId}`;
  return {
    ...team,
    manager,
    otherManager,
    branchId: main.branchId,
    pdvId: main.pdvId,
    other,
    base,
    open: (headers: H, body: object, at = base) => call('POST', `${at}/shifts/open`, headers, body),
  };
}

describe('opening a shift', () => {
  it('opens a shift at a PDV of the branch and answers it (201), listed as the PDV’s active shift', async () => {
    const w = await world();
    const res = await w.open(w.admin.headers, { pdvId: w.pdvId, openingFloat: 15000, userId: w.staff.id });
    expect(res.statusCode, res.body).toBe(201);
    const shift = res.json();
    expect(shift).toMatchObject({
      pdv: { _id: w.pdvId },
      branch: w.branchId,
      user: { _id: w.staff.id },
      openedBy: { _id: w.admin.id },
      openingFloat: 15000,
      status: 'open',
      closedAt: null,
      closedBy: null,
    });
    expect(shift._id).toMatch(/^[0-9a-f]{24}$/);
    expect(shift.user.name).toMatch(/^staff /);
    expect(Math.abs(Date.parse(shift.startedAt) - t.clock.now().getTime())).toBeLessThan(5_000);

    const pdvs = await call('GET', `${w.base}/pdvs`, w.admin.headers);
    expect(pdvs.statusCode, pdvs.body).toBe(200);
    const list = pdvs.json() as { _id: string; branch: string; activeShift: unknown }[];
    expect(list.map((p) => p._id).sort()).toEqual([w.pdvId, w.secondPdvId].sort());
    const main = list.find((p) => p._id === w.pdvId)!;
    expect(main).toMatchObject({ branch: w.branchId, active: true, serviceMode: 'balcao', gatewayATerminalSerial: null });
    expect(main.activeShift).toEqual({ _id: shift._id, user: { _id: w.staff.id, name: shift.user.name }, startedAt: shift.startedAt, openingFloat: 15000 });
    expect(list.find((p) => p._id === w.secondPdvId)!.activeShift).toBeNull();

    const active = await call('GET', `${w.base}/shifts/active`, w.admin.headers);
    expect(active.statusCode, active.body).toBe(200);
    expect(active.json()).toEqual([
      {
        _id: shift._id,
        pdv: { _id: w.pdvId, name: expect.any(String), slug: expect.any(String) },
        user: { _id: w.staff.id, name: shift.user.name, email: w.staff.email },
        startedAt: shift.startedAt,
        openingFloat: 15000,
        status: 'open',
      },
    ]);
  });

  it('allows one open shift per PDV, also for two opens at the same moment (409 shift_open), and another once it is closed', async () => {
    const w = await world();
    const body = { pdvId: w.pdvId, openingFloat: 0, userId: w.admin.id };
    const both = await Promise.all([w.open(w.admin.headers, body), w.open(w.admin.headers, { ...body, userId: w.staff.id })]);
    expect(both.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    expect(both.find((r) => r.statusCode === 409)!.json()).toMatchObject({ code: 'shift_open' });
    const again = await w.open(w.admin.headers, body);
    expect([again.statusCode, again.json().code]).toEqual([409, 'shift_open']);
    expect((await call('GET', `${w.base}/shifts/active`, w.admin.headers)).json()).toHaveLength(1);
    // Another PDV of the branch has its own.
    expect((await w.open(w.admin.headers, { ...body, pdvId: w.secondPdvId })).statusCode).toBe(201);

    const open = both.find((r) => r.statusCode === 201)!.json();
    const closed = await call('POST', `${w.base}/shifts/${open._id}/close`, w.admin.headers, { counted: { cash: 0 } });
    expect(closed.statusCode, closed.body).toBe(200);
    expect((await w.open(w.admin.headers, body)).statusCode).toBe(201);
  });

  it('refuses a PDV of another branch (403), an unknown PDV (404), an inactive PDV (409) and a user who is not a member (400)', async () => {
    const w = await world();
    const foreign = await w.open(w.admin.headers, { pdvId: w.other.pdvId, openingFloat: 0, userId: w.admin.id });
    expect([foreign.statusCode, foreign.json().code]).toEqual([403, 'pdv_branch']);
    const unknown = await w.open(w.admin.headers, { pdvId: 'ffffffffffffffffffffffff', openingFloat: 0, userId: w.admin.id });
    expect(unknown.statusCode).toBe(404);
    const outsider = await makeUser(app, null);
    const notMember = await w.open(w.admin.headers, { pdvId: w.pdvId, openingFloat: 0, userId: outsider.id });
    expect(notMember.statusCode).toBe(400);
    expect(notMember.json().details[0]).toMatchObject({ field: 'body.userId' });
    const stranger = await w.open(w.admin.headers, { pdvId: w.pdvId, openingFloat: 0, userId: 'ffffffffffffffffffffffff' });
    expect(stranger.statusCode).toBe(400);

    const off = await call('PUT', `${w.base}/pdvs/${w.secondPdvId}`, w.admin.headers, { active: false });
    expect(off.statusCode, off.body).toBe(200);
    const inactive = await w.open(w.admin.headers, { pdvId: w.secondPdvId, openingFloat: 0, userId: w.admin.id });
    expect([inactive.statusCode, inactive.json().code]).toEqual([409, 'pdv_inactive']);
    expect((await call('GET', `${w.base}/shifts/active`, w.admin.headers)).json()).toEqual([]);
  });

  it('validates the body: integer cents >= 0, ids, no unknown field', async () => {
    const w = await world();
    const ok = { pdvId: w.pdvId, openingFloat: 100, userId: w.admin.id };
    for (const [body, field] of [
      [{ ...ok, openingFloat: -1 }, 'body.openingFloat'],
      [{ ...ok, openingFloat: 10.5 }, 'body.openingFloat'],
      [{ ...ok, openingFloat: '100' }, 'body.openingFloat'],
      [{ ...ok, openingFloat: 1_000_000_001 }, 'body.openingFloat'],
      [{ pdvId: w.pdvId, userId: w.admin.id }, 'body.openingFloat'],
      [{ ...ok, pdvId: 'caixa' }, 'body.pdvId'],
      [{ ...ok, userId: undefined }, 'body.userId'],
      [{ ...ok, extra: 1 }, 'body.extra'],
    ] as const) {
      const res = await w.open(w.admin.headers, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect((await call('POST', `/api/t/${w.slug}/admin/branches/not-an-id/shifts/open`, w.admin.headers, ok)).statusCode).toBe(400);
    expect((await call('GET', `${w.base}/shifts?page=0`, w.admin.headers)).statusCode).toBe(400);
    expect((await call('GET', `${w.base}/shifts?limit=101`, w.admin.headers)).statusCode).toBe(400);
    expect((await call('GET', `${w.base}/shifts/active`, w.admin.headers)).json()).toEqual([]);
  });
});

describe('who may', () => {
  it('needs a token (401) and a cash role: accountants get 403 on every route', async () => {
    const w = await world();
    const shift = (await w.open(w.admin.headers, { pdvId: w.pdvId, openingFloat: 0, userId: w.admin.id })).json();
    const routes: [string, string, object?][] = [
      ['GET', `${w.base}/pdvs`],
      ['GET', `${w.base}/shifts/active`],
      ['GET', `${w.base}/shifts`],
      ['GET', `${w.base}/shifts/${shift._id}`],
      ['POST', `${w.base}/shifts/open`, { pdvId: w.secondPdvId, openingFloat: 0, userId: w.admin.id }],
      ['POST', `${w.base}/shifts/${shift._id}/movements`, { kind: 'addition', amount: 100, reason: 'troco' }],
      ['POST', `${w.base}/shifts/${shift._id}/close`, { counted: { cash: 0 } }],
    ];
    for (const [method, url, body] of routes) {
      expect((await call(method as 'GET', url, {}, body)).statusCode, `${method} ${url} without a token`).toBe(401);
      const res = await call(method as 'GET', url, w.accountant.headers, body);
      expect([res.statusCode, res.json().code], `${method} ${url} as accountant`).toEqual([403, 'role']);
    }
    // The superadmin passes (and is no member: cannot be the operator, but may open for one).
    const sa = await makeSuperadmin(app);
    expect((await call('GET', `${w.base}/shifts/${shift._id}`, sa.headers)).statusCode).toBe(200);
    const bySa = await w.open(sa.headers, { pdvId: w.secondPdvId, openingFloat: 0, userId: w.staff.id });
    expect(bySa.statusCode, bySa.body).toBe(201);
    expect(bySa.json().openedBy._id).toBe(sa.id);
  });

  it('limits a branch manager to their branches (403 branch_scope elsewhere)', async () => {
    const w = await world();
    const mine = await w.open(w.manager.headers, { pdvId: w.pdvId, openingFloat: 500, userId: w.manager.id });
    expect(mine.statusCode, mine.body).toBe(201);
    const theirs = await w.open(w.otherManager.headers, { pdvId: w.secondPdvId, openingFloat: 0, userId: w.otherManager.id });
    expect([theirs.statusCode, theirs.json().code]).toEqual([403, 'branch_scope']);
    for (const url of [`${w.base}/pdvs`, `${w.base}/shifts/active`, `${w.base}/shifts`, `${w.base}/shifts/${mine.json()._id}`]) {
      const res = await call('GET', url, w.otherManager.headers);
      expect([res.statusCode, res.json().code], url).toEqual([403, 'branch_scope']);
    }
    const move = await call('POST', `${w.base}/shifts/${mine.json()._id}/movements`, w.otherManager.headers, { kind: 'addition', amount: 1, reason: 'x' });
    expect(move.statusCode).toBe(403);
    // The manager of the branch sees it all, and may open for staff.
    expect((await call('GET', `${w.base}/pdvs`, w.manager.headers)).json()).toHaveLength(2);
    expect((await w.open(w.manager.headers, { pdvId: w.secondPdvId, openingFloat: 0, userId: w.staff.id })).statusCode).toBe(201);
  });

  it('lets staff open only their own shift at an assigned PDV, see only their PDVs, and act only on their own shift', async () => {
    const w = await world();
    const forOther = await w.open(w.staff.headers, { pdvId: w.pdvId, openingFloat: 0, userId: w.admin.id });
    expect([forOther.statusCode, forOther.json().code]).toEqual([403, 'own_shift']);
    const notAssigned = await w.open(w.staff.headers, { pdvId: w.secondPdvId, openingFloat: 0, userId: w.staff.id });
    expect([notAssigned.statusCode, notAssigned.json().code]).toEqual([403, 'pdv_scope']);
    const otherBranch = await w.open(w.staff.headers, { pdvId: w.other.pdvId, openingFloat: 0, userId: w.staff.id }, `/api/t/${w.slug}/admin/branches/${w.other.branchId}`);
    expect([otherBranch.statusCode, otherBranch.json().code]).toEqual([403, 'branch_scope']);

    const own = await w.open(w.staff.headers, { pdvId: w.pdvId, openingFloat: 2000, userId: w.staff.id });
    expect(own.statusCode, own.body).toBe(201);
    const pdvs = (await call('GET', `${w.base}/pdvs`, w.staff.headers)).json() as { _id: string; activeShift: { _id: string } | null }[];
    expect(pdvs.map((p) => p._id)).toEqual([w.pdvId]);
    expect(pdvs[0]!.activeShift!._id).toBe(own.json()._id);

    // A shift of someone else at a PDV the staff member does not work: not theirs to see.
    const admins = (await w.open(w.admin.headers, { pdvId: w.secondPdvId, openingFloat: 0, userId: w.admin.id })).json();
    expect((await call('GET', `${w.base}/shifts/active`, w.staff.headers)).json().map((s: { _id: string }) => s._id)).toEqual([own.json()._id]);
    const history = (await call('GET', `${w.base}/shifts`, w.staff.headers)).json();
    expect([history.total, history.data.map((s: { _id: string }) => s._id)]).toEqual([1, [own.json()._id]]);
    const peek = await call('GET', `${w.base}/shifts/${admins._id}`, w.staff.headers);
    expect([peek.statusCode, peek.json().code]).toEqual([403, 'pdv_scope']);

    // Someone else's shift at the staff member's PDV: readable, not theirs to change.
    const closeOwn = await call('POST', `${w.base}/shifts/${own.json()._id}/close`, w.staff.headers, { counted: { cash: 2000 } });
    expect(closeOwn.statusCode, closeOwn.body).toBe(200);
    const adminsHere = (await w.open(w.admin.headers, { pdvId: w.pdvId, openingFloat: 0, userId: w.admin.id })).json();
    expect((await call('GET', `${w.base}/shifts/${adminsHere._id}`, w.staff.headers)).statusCode).toBe(200);
    for (const [url, body] of [
      [`${w.base}/shifts/${adminsHere._id}/movements`, { kind: 'addition', amount: 100, reason: 'troco' }],
      [`${w.base}/shifts/${adminsHere._id}/close`, { counted: { cash: 0 } }],
    ] as const) {
      const res = await call('POST', url, w.staff.headers, body);
      expect([res.statusCode, res.json().code], url).toEqual([403, 'own_shift']);
    }
  });

  it("keeps a tenant's branches and shifts from another tenant: 404 through its own slug, 403 through the owner's", async () => {
    const w = await world();
    const shift = (await w.open(w.admin.headers, { pdvId: w.pdvId, openingFloat: 1000, userId: w.admin.id })).json();
    expect((await call('POST', `${w.base}/shifts/${shift._id}/movements`, w.admin.headers, { kind: 'addition', amount: 500, reason: 'troco' })).statusCode).toBe(201);
    const outsider = await makeTenantWithTeam(app);
    const path = `/api/t/:slug/admin/branches/${w.branchId}`;
    await expectTenantIsolation({
      app,
      ownerSlug: w.slug,
      outsider: { slug: outsider.slug, headers: outsider.admin.headers },
      requests: [
        { method: 'GET', path: `${path}/pdvs` },
        { method: 'GET', path: `${path}/shifts/active` },
        { method: 'GET', path: `${path}/shifts` },
        { method: 'GET', path: `${path}/shifts/${shift._id}` },
        { method: 'POST', path: `${path}/shifts/open`, payload: { pdvId: w.secondPdvId, openingFloat: 0, userId: outsider.admin.id } },
        { method: 'POST', path: `${path}/shifts/${shift._id}/movements`, payload: { kind: 'withdrawal', amount: 100, reason: 'x' } },
        { method: 'POST', path: `${path}/shifts/${shift._id}/close`, payload: { counted: { cash: 0 } } },
      ],
      snapshot: async () => (await call('GET', `${w.base}/shifts/${shift._id}`, w.admin.headers)).json(),
    });
    // The outsider's own branch with the owner's shift id, or the owner's PDV: not found either.
    const own = await makePdv(app, outsider.tenant);
    const ownBase = `/api/t/${outsider.slug}/admin/branches/${own.branchId}`;
    expect((await call('GET', `${ownBase}/shifts/${shift._id}`, outsider.admin.headers)).statusCode).toBe(404);
    expect((await call('POST', `${ownBase}/shifts/${shift._id}/close`, outsider.admin.headers, { counted: { cash: 0 } })).statusCode).toBe(404);
    const foreignPdv = await call('POST', `${ownBase}/shifts/open`, outsider.admin.headers, { pdvId: w.pdvId, openingFloat: 0, userId: outsider.admin.id });
    expect(foreignPdv.statusCode).toBe(404);
    // A shift of another branch of the same tenant, through this branch: not found.
    const elsewhere = (await w.open(w.admin.headers, { pdvId: w.other.pdvId, openingFloat: 0, userId: w.admin.id }, `/api/t/${w.slug}/admin/branches/${w.other.branchId}`)).json();
    expect((await call('GET', `${w.base}/shifts/${elsewhere._id}`, w.admin.headers)).statusCode).toBe(404);
  });
});

describe('movements and history', () => {
  it('records additions and withdrawals with who made them, refuses a withdrawal above the cash in the drawer, and validates', async () => {
    const w = await world();
    const shift = (await w.open(w.staff.headers, { pdvId: w.pdvId, openingFloat: 10000, userId: w.staff.id })).json();
    const move = (body: object, headers: H = w.staff.headers) => call('POST', `${w.base}/shifts/${shift._id}/movements`, headers, body);

    const add = await move({ kind: 'addition', amount: 2500, reason: ' troco do cofre ' });
    expect(add.statusCode, add.body).toBe(201);
    expect(add.json()).toMatchObject({ shift: shift._id, kind: 'addition', amount: 2500, reason: 'troco do cofre', createdBy: { _id: w.staff.id } });
    const tooMuch = await move({ kind: 'withdrawal', amount: 12501, reason: 'sangria' });
    expect([tooMuch.statusCode, tooMuch.json().code]).toEqual([409, 'insufficient_cash']);
    // Two withdrawals at once cannot both take the same cash.
    const both = await Promise.all([move({ kind: 'withdrawal', amount: 8000, reason: 'sangria 1' }), move({ kind: 'withdrawal', amount: 8000, reason: 'sangria 2' }, w.admin.headers)]);
    expect(both.map((r) => [r.statusCode, r.json().code ?? null]).sort()).toEqual([
      [201, null],
      [409, 'insufficient_cash'],
    ]);
    const exact = await move({ kind: 'withdrawal', amount: 4500, reason: 'sangria' }, w.manager.headers);
    expect(exact.statusCode, exact.body).toBe(201);
    expect(exact.json().createdBy._id).toBe(w.manager.id);
    expect((await move({ kind: 'withdrawal', amount: 1, reason: 'sangria' })).json().code).toBe('insufficient_cash');

    for (const [body, field] of [
      [{ kind: 'withdrawal', amount: 0, reason: 'x' }, 'body.amount'],
      [{ kind: 'withdrawal', amount: -5, reason: 'x' }, 'body.amount'],
      [{ kind: 'withdrawal', amount: 1.5, reason: 'x' }, 'body.amount'],
      [{ kind: 'sangria', amount: 1, reason: 'x' }, 'body.kind'],
      [{ kind: 'addition', amount: 1, reason: '   ' }, 'body.reason'],
      [{ kind: 'addition', amount: 1 }, 'body.reason'],
      [{ kind: 'addition', amount: 1, reason: 'x'.repeat(201) }, 'body.reason'],
    ] as const) {
      const res = await move(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().details.map((d: { field: string }) => d.field)).toContain(field);
    }
    expect((await call('POST', `${w.base}/shifts/ffffffffffffffffffffffff/movements`, w.admin.headers, { kind: 'addition', amount: 1, reason: 'x' })).statusCode).toBe(404);

    const detail = await call('GET', `${w.base}/shifts/${shift._id}`, w.admin.headers);
    expect(detail.statusCode, detail.body).toBe(200);
    expect(detail.json()).toMatchObject({
      status: 'open',
      cashMovements: { additions: 2500, withdrawals: 12500 },
      // While open the count is blind: nothing expected is shown.
      sales: null,
      expected: null,
      counted: null,
      difference: null,
      totals: null,
      notes: null,
    });
    expect(detail.json().movements.map((m: { kind: string; amount: number }) => [m.kind, m.amount])).toEqual([
      ['addition', 2500],
      ['withdrawal', 8000],
      ['withdrawal', 4500],
    ]);
  });

  it('lists the history newest first, a page at a time', async () => {
    const w = await world();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const opened = (await w.open(w.admin.headers, { pdvId: w.pdvId, openingFloat: i * 100, userId: w.staff.id })).json();
      ids.push(opened._id);
      t.clock.advance(60_000);
      if (i < 2) expect((await call('POST', `${w.base}/shifts/${opened._id}/close`, w.admin.headers, { counted: { cash: i * 100 + 1 } })).statusCode).toBe(200);
    }
    const first = await call('GET', `${w.base}/shifts?limit=2`, w.admin.headers);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ total: 3, page: 1, totalPages: 2 });
    expect(first.json().data.map((s: { _id: string }) => s._id)).toEqual([ids[2], ids[1]]);
    expect(first.json().data[0]).toMatchObject({ status: 'open', totals: null, closedBy: null });
    expect(first.json().data[1]).toMatchObject({ status: 'closed', closedBy: { _id: w.admin.id }, totals: { expected: 100, counted: 101, difference: 1 } });
    const second = (await call('GET', `${w.base}/shifts?limit=2&page=2`, w.admin.headers)).json();
    expect([second.page, second.data.map((s: { _id: string }) => s._id)]).toEqual([2, [ids[0]]]);
    const empty = (await call('GET', `/api/t/${w.slug}/admin/branches/${w.other.branchId}/shifts`, w.admin.headers)).json();
    expect(empty).toEqual({ data: [], total: 0, page: 1, totalPages: 0 });
  });
});
