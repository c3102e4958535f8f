import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeScopedTeam } from '../../../test/factories.js';

/** `GET /t/:slug/pdvs`: the PDVs the caller works, for the floor and the cashier's shift. */
let t: TestApp;
let team: Awaited<ReturnType<typeof makeScopedTeam>>;
let outsider: Awaited<ReturnType<typeof makeScopedTeam>>;
beforeAll(async () => {
  t = await createTestApp();
  team = await makeScopedTeam(t.app);
  outsider = await makeScopedTeam(t.app);
});
afterAll(() => t.close());

const list = (slug: string, headers: Record<string, string> = {}) => t.app.inject({ url: `/t/${slug}/pdvs`, headers });
const ids = (body: { _id: string }[]) => body.map((p) => p._id).sort();

describe('GET /t/:slug/pdvs', () => {
  it('answers an admin every PDV with its branch id and name', async () => {
    const res = await list(team.slug, team.admin.headers);
    expect(res.statusCode, res.body).toBe(200);
    expect(ids(res.json())).toEqual([team.main.pdvId, team.secondPdvId, team.other.pdvId].sort());
    const main = res.json().find((p: { _id: string }) => p._id === team.main.pdvId);
    expect(main).toMatchObject({ slug: team.main.slug, branch: team.main.branchId, branchName: `Filial ${team.main.slug}`, active: true });
  });

  it('answers staff their assigned PDV, and a branch manager the PDVs of their branch', async () => {
    expect(ids((await list(team.slug, team.staff.headers)).json())).toEqual([team.main.pdvId]);
    expect(ids((await list(team.slug, team.manager.headers)).json())).toEqual([team.main.pdvId, team.secondPdvId].sort());
    expect(ids((await list(team.slug, team.otherManager.headers)).json())).toEqual([team.other.pdvId]);
  });

  it('refuses an accountant (403), no token (401), and a member of another tenant (403), showing nothing of it', async () => {
    expect((await list(team.slug, team.accountant.headers)).statusCode).toBe(403);
    expect((await list(team.slug)).statusCode).toBe(401);
    const res = await list(team.slug, outsider.admin.headers);
    expect(res.statusCode).toBe(403);
    expect(res.body).not.toContain(team.main.pdvId);
    expect((await list('no-such-tenant', team.admin.headers)).statusCode).toBe(404);
  });
});
