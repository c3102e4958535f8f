import { expect } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { App } from '../src/app.js';
import type { MemberRole } from '../src/db/schema/users.js';
import type { TenantView } from '../src/modules/tenants/tenants.schemas.js';

const uniq = () => randomBytes(4).toString('hex');

export const PASSWORD = 'correct-horse-battery';

export interface TestUser {
  id: string;
  email: string;
  token: string;
  /** `{ authorization: 'Bearer ...' }` for app.inject. */
  headers: { authorization: string };
}

async function tokenFor(app: App, id: string, email: string): Promise<TestUser> {
  const token = await app.deps.jwt.sign(id);
  return { id, email, token, headers: { authorization: `Bearer ${token}` } };
}

export async function makeTenant(
  app: App,
  overrides: Partial<{ name: string; slug: string; plan: 'free' | 'basic' | 'premium'; businessType: 'restaurant' | 'mercado' | 'padaria' }> = {},
): Promise<TenantView> {
  const slug = overrides.slug ?? `t-${uniq()}`;
  return app.services.tenants.create({ name: overrides.name ?? `Restaurante ${slug}`, slug, ...overrides });
}

export async function makeUser(app: App, tenant: { _id: string } | null, role: MemberRole = 'admin', opts: { email?: string; password?: string } = {}): Promise<TestUser> {
  const email = opts.email ?? `${role}-${uniq()}@example.com`;
  const id = await app.services.users.createAccount({ email, name: `${role} ${uniq()}`, password: opts.password ?? PASSWORD });
  if (tenant) await app.services.users.addMember(app.deps.tenantDb(tenant._id), id, role);
  return tokenFor(app, id, email);
}

export async function makeSuperadmin(app: App): Promise<TestUser> {
  const email = `sa-${uniq()}@example.com`;
  const id = await app.services.users.createAccount({ email, name: 'Super', password: PASSWORD, isSuperadmin: true });
  return tokenFor(app, id, email);
}

/** A tenant with an admin, a staff member and an accountant, ready to call routes. */
export async function makeTenantWithTeam(app: App, overrides: Parameters<typeof makeTenant>[1] = {}) {
  const tenant = await makeTenant(app, overrides);
  const [admin, staff, accountant] = await Promise.all([
    makeUser(app, tenant, 'admin'),
    makeUser(app, tenant, 'staff'),
    makeUser(app, tenant, 'accountant'),
  ]);
  return { tenant, slug: tenant.slug, admin, staff, accountant };
}

export async function login(app: App, email: string, password = PASSWORD) {
  return app.inject({ method: 'POST', url: '/auth/login', payload: { email, password } });
}

// ---- menu, tables and reservations (through the services: fast, and the same rules as HTTP)

export async function makeCategory(app: App, tenant: { _id: string }, overrides: Partial<{ name: string; order: number; isActive: boolean }> = {}) {
  return app.services.menu.createCategory(app.deps.tenantDb(tenant._id), { name: overrides.name ?? `Pratos ${uniq()}`, ...overrides });
}

export async function makeModifierGroup(
  app: App,
  tenant: { _id: string },
  overrides: Partial<Parameters<App['services']['menu']['createGroup']>[1]> = {},
) {
  return app.services.menu.createGroup(app.deps.tenantDb(tenant._id), {
    name: `Ponto da carne ${uniq()}`,
    type: 'single',
    required: true,
    options: [
      { name: 'Mal passada', priceAdjustment: 0 },
      { name: 'Ao ponto', priceAdjustment: 0, isDefault: true },
      { name: 'Bem passada', priceAdjustment: 0 },
    ],
    ...overrides,
  });
}

/** A menu item; creates a category for it unless one is given. */
export async function makeMenuItem(
  app: App,
  tenant: { _id: string },
  overrides: Partial<Parameters<App['services']['menu']['createItem']>[1]> = {},
) {
  const category = overrides.category ?? (await makeCategory(app, tenant))._id;
  return app.services.menu.createItem(app.deps.tenantDb(tenant._id), {
    name: `Picanha ${uniq()}`,
    description: 'Picanha grelhada com farofa e vinagrete',
    price: 8990,
    preparationTime: 25,
    allergens: [],
    ...overrides,
    category,
  });
}

let tableNumber = 0;
export async function makeTable(app: App, tenant: { _id: string }, overrides: Partial<Parameters<App['services']['tables']['create']>[1]> = {}) {
  return app.services.tables.create(app.deps.tenantDb(tenant._id), { number: ++tableNumber, capacity: 4, ...overrides });
}

/** A pending reservation a week ahead, unless told otherwise. */
export async function makeReservation(
  app: App,
  tenant: { _id: string; timezone?: string },
  overrides: Partial<Parameters<App['services']['reservations']['create']>[1]> = {},
) {
  const date = new Date(app.deps.clock.now().getTime() + 7 * 86_400_000).toISOString().slice(0, 10);
  return app.services.reservations.create(
    { db: app.deps.tenantDb(tenant._id), timezone: tenant.timezone ?? 'America/Sao_Paulo' },
    { customerName: 'Maria Souza', customerPhone: '(11) 98765-4321', date, time: '20:00', partySize: 4, ...overrides },
  );
}

/** A branch with one PDV (optionally with a card terminal). */
export async function makePdv(app: App, tenant: { _id: string }, opts: { terminal?: string } = {}) {
  const slug = `pdv-${uniq()}`;
  const t = app.deps.tenantDb(tenant._id);
  const branch = await app.services.branches.createBranch(t, { name: `Filial ${slug}`, slug: `b-${slug}` });
  const pdv = await app.services.branches.createPdv(t, {
    branchId: branch.id,
    name: `Caixa ${slug}`,
    slug,
    gatewayATerminalSerial: opts.terminal ?? null,
  });
  return { branchId: branch.id, pdvId: pdv.id, slug };
}

/**
 * A tenant with branch A (its first PDV `main` and a second one) and branch B (PDV `other`), the staff
 * member assigned to `main`, a branch manager of A and another of B: the world of the branch-scope tests.
 */
export async function makeScopedTeam(app: App) {
  const team = await makeTenantWithTeam(app);
  const tdb = app.deps.tenantDb(team.tenant._id);
  const main = await makePdv(app, team.tenant);
  const second = await app.services.branches.createPdv(tdb, { branchId: main.branchId, name: 'Caixa 2', slug: `c2-${main.slug}` });
  const other = await makePdv(app, team.tenant);
  const assign = async (user: TestUser, body: object) => {
    const res = await app.inject({ method: 'PUT', url: `/t/${team.slug}/users/${user.id}`, headers: team.admin.headers, payload: body });
    if (res.statusCode !== 200) throw new Error(`assigning ${user.email} failed: ${res.statusCode} ${res.body}`);
  };
  await assign(team.staff, { assignedPdvIds: [main.pdvId] });
  const manager = await makeUser(app, team.tenant, 'branch_manager');
  await assign(manager, { assignedBranchIds: [main.branchId] });
  const otherManager = await makeUser(app, team.tenant, 'branch_manager');
  await assign(otherManager, { assignedBranchIds: [other.branchId] });
  return { ...team, tdb, main, secondPdvId: second.id, other, manager, otherManager };
}

// ---- sessions and accounts

let clientAddress = 0;
/** Logs in from an address of its own, so tests that open many sessions stay under the login rate limit. */
export async function session(app: App, email: string, password = PASSWORD) {
  const n = ++clientAddress;
  const res = await app.inject({
    method: 'POST',
    url: '/auth/login',
    remoteAddress: `10.77.${(n >> 8) & 255}.${n & 255}`,
    payload: { email, password },
  });
  if (res.statusCode !== 200) throw new Error(`login of ${email} failed: ${res.statusCode} ${res.body}`);
  const pair = res.json() as { accessToken: string; refreshToken: string; user: { _id: string } };
  return { ...pair, headers: { authorization: `Bearer ${pair.accessToken}` } };
}

/** A superadmin who is also a member of the tenant (e.g. the platform operator helping a restaurant). */
export async function makeLinkedSuperadmin(app: App, tenant: { _id: string }, role: MemberRole = 'admin'): Promise<TestUser> {
  const sa = await makeSuperadmin(app);
  await app.services.users.addMember(app.deps.tenantDb(tenant._id), sa.id, role);
  return sa;
}

/** A superadmin, after loading the default chart into the system chart with it (the accounting tests start so). */
export async function seedDefaultChart(app: App): Promise<TestUser> {
  const sa = await makeSuperadmin(app);
  const res = await app.inject({ method: 'POST', url: `/t/${(await makeTenantWithTeam(app)).slug}/accounting/chart/seed/defaults`, headers: sa.headers });
  expect(res.statusCode, res.body).toBe(200);
  return sa;
}
