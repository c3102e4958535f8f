import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/client.js';
import { accountMappings, bankAccounts, bankImports, bankStatementLines, receivables } from '../src/db/schema/accounting.js';
import { importedInvoices, salesSnapshots, suggestedPurchaseOrders, supplierItemMappings } from '../src/db/schema/purchasing.js';
import { catalogSyncRuns, deliveryEvents, deliveryStatusPushes, marketplaceIntegrations } from '../src/db/schema/delivery.js';
import { BYPASS_USES, TENANT_ROLE, type TenantDb } from '../src/db/scopes.js';
import { newId } from '../src/db/ids.js';
import { createTestApp, type TestApp } from './app.js';
import { installApp, makePublishedApp } from './apps.js';
import { makeMenuItem, makeModifierGroup, makePdv, makeReservation, makeSuperadmin, makeTable, makeTenantWithTeam } from './factories.js';

/**
 * Tenant isolation enforced by PostgreSQL (migration 0008, src/db/scopes.ts): the catalog holds every
 * table to the rule, and real queries through one tenant's handle find nothing of another's.
 */

/** Tables without a tenant, on purpose: a new one must be added here, or get `tenant_id` and its policy. */
const SHARED_TABLES = [
  'tenants', // the tenants themselves (resolved by slug before any tenant is known)
  'users', // a person may belong to several tenants
  'refresh_tokens', // a person's sessions
  'password_reset_tokens', // a person's reset links
  'rate_limit_hits', // keyed by address or account, across tenants
  'idempotency_keys', // scoped by a key naming the tenant and route, answered before the handler
  'socket_io_attachments', // the realtime adapter's own table (PostgreSQL only)
  'system_accounts', // the system default chart of accounts (spec: tenant null), read by every tenant, written by the superadmin's seed
  'ncm_codes', // the NCM table (Siscomex), loaded once, read by every tenant
  'apps', // the marketplace's Apps, made by the platform operator, read by every tenant (published ones)
  'api_keys', // legacy public API keys, bound to a person (who may belong to several tenants)
  'rate_limit_windows', // the public API's rate-limit counters, keyed by credential or address
  'system_expense_categories', // the default expense categories (spec 2: tenant null), seeded by the migration, read by every tenant
  'platform_audit_events', // audit events of no tenant (logins, a person's password), read by the superadmin only
];

/** Tenant tables the app's role may only add to and read (migration 0027): its updates and deletes are refused outright. */
const APPEND_ONLY = ['audit_events'];

const POLICY = "(tenant_id = (current_setting('app.tenant_id'::text, true))::bpchar)";

let t: TestApp;
let rows: <T>(db: Db, query: ReturnType<typeof sql>) => Promise<T[]>;

beforeAll(async () => {
  t = await createTestApp();
  rows = async <T>(db: Db, query: ReturnType<typeof sql>) => {
    const res = (await db.execute(query)) as unknown as { rows: T[] };
    return res.rows;
  };
});
afterAll(() => t.close());

interface TableInfo {
  name: string;
  hasTenant: boolean;
  rls: boolean;
  forced: boolean;
}

const catalog = () =>
  t.db.database.owner((db) =>
    rows<TableInfo>(
      db,
      sql`select c.relname as name, c.relrowsecurity as rls, c.relforcerowsecurity as forced,
            exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'tenant_id' and not a.attisdropped) as "hasTenant"
          from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = 'public' and c.relkind in ('r', 'p') order by 1`,
    ),
  );

async function tenantTables(): Promise<string[]> {
  return (await catalog()).filter((c) => c.hasTenant).map((c) => c.name);
}

describe('the catalog', () => {
  it('has row-level security enabled and forced, with the tenant policy, on every table with tenant_id', async () => {
    const tables = await catalog();
    const policies = await t.db.database.owner((db) =>
      rows<{ table: string; name: string; cmd: string; permissive: string; roles: string[]; qual: string | null; check: string | null }>(
        db,
        sql`select tablename as table, policyname as name, cmd, permissive, roles::text[] as roles, qual, with_check as check
            from pg_policies where schemaname = 'public'`,
      ),
    );
    const withTenant = tables.filter((c) => c.hasTenant);
    expect(withTenant.length).toBeGreaterThanOrEqual(12);
    for (const table of withTenant) {
      expect(table, `${table.name}: row-level security enabled and forced`).toMatchObject({ rls: true, forced: true });
      const own = policies.filter((p) => p.table === table.name);
      // One permissive policy for every command and role: another permissive one would widen it.
      expect(own, `${table.name}: exactly the tenant policy`).toEqual([
        { table: table.name, name: 'tenant_isolation', cmd: 'ALL', permissive: 'PERMISSIVE', roles: ['public'], qual: POLICY, check: POLICY },
      ]);
    }
    // Every other table is shared on purpose, and listed.
    expect(tables.filter((c) => !c.hasTenant).map((c) => c.name).sort()).toEqual(
      SHARED_TABLES.filter((name) => tables.some((c) => c.name === name)).sort(),
    );
    expect(tables.map((c) => c.name)).toEqual(expect.arrayContaining(['tenants', 'users', 'refresh_tokens', 'memberships', 'orders']));
  });

  it('runs tenant work as a role that owns nothing and cannot bypass the policies', async () => {
    const [role] = await t.db.database.owner((db) =>
      rows<{ super: boolean; bypass: boolean; login: boolean; owns: number }>(
        db,
        sql`select rolsuper as super, rolbypassrls as bypass, rolcanlogin as login,
              (select count(*)::int from pg_class where relowner = r.oid) as owns
            from pg_roles r where rolname = ${TENANT_ROLE}`,
      ),
    );
    expect(role).toEqual({ super: false, bypass: false, login: false, owns: 0 });
    const [shared] = await rows<{ who: string; tenant: string | null }>(t.app.deps.db, sql`select current_user as who, nullif(current_setting('app.tenant_id', true), '') as tenant`);
    expect(shared).toEqual({ who: TENANT_ROLE, tenant: null });
    const a = await makeTenantWithTeam(t.app);
    const [scoped] = await t.app.deps.tenantDb(a.tenant._id).run((tx) =>
      rows<{ who: string; tenant: string }>(tx.db, sql`select current_user as who, current_setting('app.tenant_id') as tenant`),
    );
    expect(scoped).toEqual({ who: TENANT_ROLE, tenant: a.tenant._id });
    // The setting is the transaction's: gone once it ends, on the same pooled connection or the only PGlite one.
    const [after] = await rows<{ tenant: string | null }>(t.app.deps.db, sql`select nullif(current_setting('app.tenant_id', true), '') as tenant`);
    expect(after.tenant).toBeNull();
  });

  it('refuses, inside a tenant transaction, the shared handle, another scope and the bypass (they would wait for the connection it holds)', async () => {
    const a = await makeTenantWithTeam(t.app);
    const b = await makeTenantWithTeam(t.app);
    const inside = (work: () => Promise<unknown>) => t.app.deps.tenantDb(a.tenant._id).run(() => work());
    // (drizzle wraps a refused statement in its own error, with ours as the cause)
    const refusedNesting = (e: Error & { cause?: Error }) => /inside the transaction of tenant/.test(`${e.message} ${e.cause?.message ?? ''}`);
    await expect(inside(() => t.app.deps.db.execute(sql`select 1`))).rejects.toSatisfy(refusedNesting);
    await expect(inside(() => t.app.deps.tenantDb(b.tenant._id).run(async () => 1))).rejects.toSatisfy(refusedNesting);
    await expect(inside(() => t.app.deps.bypass('payment-sweep', async () => 1))).rejects.toSatisfy(refusedNesting);
    // The handle given to the work continues the same transaction instead.
    expect(await t.app.deps.tenantDb(a.tenant._id).run((tx) => tx.run(async (same) => same === tx))).toBe(true);
  });

  it('refuses a tenant handle for something that is not a tenant id', () => {
    expect(() => t.app.deps.tenantDb("x', true), set_config('role', 'postgres")).toThrow(/not a tenant id/);
  });
});

/** One row in every tenant table, made the way the product makes them. */
async function fillTenant() {
  // Premium: purchasing and predictions are plan features.
  const team = await makeTenantWithTeam(t.app, { plan: 'premium' });
  const group = await makeModifierGroup(t.app, team.tenant);
  const item = await makeMenuItem(t.app, team.tenant, { modifierGroupIds: [group._id] });
  await makeTable(t.app, team.tenant);
  await makeReservation(t.app, team.tenant);
  const pdv = await makePdv(t.app, team.tenant);
  // A cashier shift at the PDV, with a cash movement ("suprimento").
  const shift = await t.app.inject({
    method: 'POST',
    url: `/api/t/${team.slug}/admin/branches/${pdv.branchId}/shifts/open`,
    headers: team.admin.headers,
    payload: { pdvId: pdv.pdvId, openingFloat: 10000, userId: team.admin.id },
  });
  expect(shift.statusCode, shift.body).toBe(201);
  const movement = await t.app.inject({
    method: 'POST',
    url: `/api/t/${team.slug}/admin/branches/${pdv.branchId}/shifts/${shift.json()._id}/movements`,
    headers: team.admin.headers,
    payload: { kind: 'addition', amount: 5000, reason: 'troco' },
  });
  expect(movement.statusCode, movement.body).toBe(201);
  // Inventory: an item under its minimum (an alert), its recipe for the dish (the paid order below deducts
  // it: a movement and the order's stock record), its stock at the PDV, and a label.
  const post = async (url: string, payload: object, method: 'POST' | 'PUT' = 'POST') => {
    const res = await t.app.inject({ method, url: `/t/${team.slug}${url}`, headers: team.admin.headers, payload });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json() as { _id: string };
  };
  const stock = await post('/inventory', { name: 'Picanha', sku: 'PIC-1', currentStock: 10, minStock: 20, unit: 'kg', cost: 8990 });
  await post('/inventory/ingredients', { menuItemId: item._id, inventoryItemId: stock._id, quantityPerUnit: 0.4 });
  await post(`/branch-stock/${pdv.pdvId}`, { itemId: stock._id, physicalQuantity: 2, minQuantity: 1 }, 'PUT');
  await post('/inventory/labels', { itemId: stock._id, quantity: 0.5, reason: 'loss' });
  // Purchasing: a supplier and a purchase order through the routes; an imported invoice, a remembered
  // supplier code, a suggestion and a day of sales written straight through the tenant's handle.
  const supplier = await post('/inventory/suppliers', { name: 'Frigorífico Boi Bom' });
  await post('/inventory/purchase-orders', { supplierId: supplier._id, items: [{ inventoryItemId: stock._id, itemName: 'Picanha', quantity: 5, unitCost: 8500 }] });
  await t.app.deps.tenantDb(team.tenant._id).run(async (tx) => {
    const tenantId = tx.tenantId;
    await tx.db.insert(salesSnapshots).values({ tenantId, day: '2026-01-15', menuItemId: item._id, quantityMilli: 3000, orders: 2 });
    await tx.db.insert(supplierItemMappings).values({ tenantId, supplierCnpj: '11222333000181', supplierCode: 'PIC01', itemId: stock._id });
    await tx.db.insert(suggestedPurchaseOrders).values({ tenantId, id: newId(), horizonDays: 7, items: [], totalCostCents: 0 });
    await tx.db.insert(importedInvoices).values({
      tenantId,
      id: newId(),
      nfeKey: `${Date.now()}`.padEnd(44, '0').slice(0, 44),
      nfeNumber: '1',
      emitterCnpj: '11222333000181',
      emitterName: 'Frigorífico Boi Bom',
      totalCents: 42500,
      itemsCount: 1,
      summary: {},
    });
  });
  // Accounting: two tenant accounts, an entry posted then reversed (entries, lines, the year's counter), a closed month.
  const group9 = await post('/accounting/chart', { code: '9', name: 'Grupo', nature: 'ativo', type: 'sintetica', normalBalance: 'debit' });
  const debitAcc = await post('/accounting/chart', { code: '9.1', name: 'A', nature: 'ativo', type: 'analitica', normalBalance: 'debit', parent: group9._id });
  const creditAcc = await post('/accounting/chart', { code: '9.2', name: 'B', nature: 'ativo', type: 'analitica', normalBalance: 'debit', parent: group9._id });
  const entry = await post('/accounting/journal', {
    competenceDate: '2026-02-10',
    description: 'Lançamento',
    lines: [{ accountId: debitAcc._id, debit: 10 }, { accountId: creditAcc._id, credit: 10 }],
  });
  await post(`/accounting/journal/${entry._id}/post`, {});
  await post(`/accounting/journal/${entry._id}/reverse`, { reason: 'teste' });
  await post('/accounting/ledger/close', { year: 2026, month: 1 });
  // The books beside the journal: a receivable, a bank account with an imported statement line matched to
  // the entry, an account mapping (written through the tenant's handle: the routes are tested in their files).
  await t.app.deps.tenantDb(team.tenant._id).run(async (tx) => {
    const tenantId = tx.tenantId;
    const bankId = newId();
    const importId = newId();
    await tx.db.insert(receivables).values({
      tenantId,
      id: newId(),
      source: 'manual',
      description: 'Evento fechado',
      accountId: debitAcc._id,
      amountCents: 1000,
      issueDate: '2026-02-10',
      dueDate: '2026-03-10',
    });
    await tx.db.insert(bankAccounts).values({ tenantId, id: bankId, name: 'Conta', bank: '001', agency: '1234', account: '5678-9', type: 'checking', ledgerAccountId: debitAcc._id });
    await tx.db.insert(bankImports).values({ tenantId, id: importId, bankAccountId: bankId, format: 'ofx', linesRead: 1, linesAdded: 1 });
    await tx.db.insert(bankStatementLines).values({
      tenantId,
      id: newId(),
      bankAccountId: bankId,
      importId,
      fitId: 'F1',
      postedDate: '2026-02-10',
      amountCents: 1000,
      description: 'Depósito',
      status: 'matched',
      matchedEntryId: entry._id,
    });
    await tx.db.insert(accountMappings).values({ tenantId, key: 'cash', accountId: debitAcc._id });
  });
  // The income statement's inputs and a cost sheet (the dish's recipe is the Picanha above).
  const dreCategory = await post('/dre/categories', { code: 'ISO-CAT', name: 'Categoria', dreGroup: 'opex' });
  const costCenter = await post('/dre/cost-centers', { code: 'ISO-CC', name: 'Centro' });
  await post('/dre/expenses', { description: 'Despesa', amount: 12.34, competenceDate: '2026-03-15', categoryId: dreCategory._id, costCenterId: costCenter._id });
  await post('/bom/indirect-costs', { menuItemId: item._id, type: 'packaging', label: 'Embalagem', valuePerUnit: 150, unitType: 'fixed' });
  await post(`/bom/${item._id}/calculate`, { targetMargin: 0.6 });
  const order = await t.app.inject({
    method: 'POST',
    url: `/t/${team.slug}/orders`,
    headers: team.staff.headers,
    payload: {
      orderType: 'takeout',
      customerName: 'João',
      items: [{ menuItem: item._id, quantity: 1, modifiers: [{ groupId: group._id, options: ['Ao ponto'] }] }],
    },
  });
  expect(order.statusCode, order.body).toBe(201);
  const paid = await t.app.inject({
    method: 'POST',
    url: `/t/${team.slug}/orders/${order.json()._id}/process-payment`,
    headers: team.staff.headers,
    payload: { method: 'cash', gateway: 'mock' },
  });
  expect(paid.statusCode, paid.body).toBe(200);
  // (The fiscal token set below and the App installed after it write two audit_events.)
  // Fiscal documents: an authorised NFC-e (document, counter, files), a rejected NF-e (a voided number), an EFD export.
  const fiscal = (payload: object) => t.app.inject({ method: 'POST', url: `/t/${team.slug}/fiscal/emit`, headers: team.admin.headers, payload });
  const setup = await t.app.inject({
    method: 'PUT',
    url: `/t/${team.slug}/tenants`,
    headers: team.admin.headers,
    payload: { cnpj: '11222333000181', fiscalProviderToken: `token-${team.slug}`, state: 'SP' },
  });
  expect(setup.statusCode, setup.body).toBe(200);
  const nfce = await fiscal({ orderId: order.json()._id, tipo: 'nfce' });
  expect(nfce.statusCode, nfce.body).toBe(201);
  expect((await fiscal({ orderId: order.json()._id, tipo: 'nfe', customerCpf: '52998224700' })).statusCode).toBe(422);
  const day = nfce.json().emittedAt.slice(0, 10);
  const efd = await t.app.inject({ url: `/t/${team.slug}/accountant/export/efd?startDate=${day}&endDate=${day}`, headers: team.admin.headers });
  expect(efd.statusCode, efd.body).toBe(200);
  // An App installed with webhooks: the order's next status change queues a delivery to it.
  const operator = await makeSuperadmin(t.app);
  const hooked = await makePublishedApp(t.app, operator, { scopes: ['orders.read', 'webhooks.subscribe'] });
  await installApp(t.app, team, hooked.slug, ['orders.read', 'webhooks.subscribe']);
  const confirmed = await t.app.inject({ method: 'PUT', url: `/t/${team.slug}/orders/${order.json()._id}/status`, headers: team.admin.headers, payload: { status: 'confirmed' } });
  expect(confirmed.statusCode, confirmed.body).toBe(200);
  // A delivery platform's integration, one event of it, a status push and a catalog sync run.
  await t.app.deps.tenantDb(team.tenant._id).run(async (tx) => {
    const integrationId = newId();
    const now = new Date();
    await tx.db.insert(marketplaceIntegrations).values({ tenantId: tx.tenantId, id: integrationId, provider: 'provider_a', credentials: 'v1:x:y:z' });
    await tx.db.insert(deliveryEvents).values({
      tenantId: tx.tenantId, id: newId(), integrationId, provider: 'provider_a', type: 'PLACED', payload: {}, receivedAt: now,
    });
    await tx.db.insert(deliveryStatusPushes).values({
      tenantId: tx.tenantId, id: newId(), integrationId, orderId: order.json()._id, externalOrderId: 'x-1', status: 'confirmed', providerStatus: 'CONFIRMED',
    });
    await tx.db.insert(catalogSyncRuns).values({ tenantId: tx.tenantId, id: newId(), integrationId, full: true, total: 1, startedAt: now });
  });
  return team;
}

const count = async (db: Db, table: string, where = sql``) =>
  (await rows<{ n: number }>(db, sql`select count(*)::int as n from ${sql.identifier(table)} ${where}`))[0]!.n;

/** The error PostgreSQL raises when a row breaks the policy. */
async function refused(work: Promise<unknown>) {
  const err = (await work.then(
    () => null,
    (e: unknown) => e,
  )) as { code?: string; cause?: { code?: string } } | null;
  expect(err, 'the database refused the write').not.toBeNull();
  expect(err!.code ?? err!.cause?.code).toBe('42501');
}

describe('queries through one tenant handle against another tenant', () => {
  let a: Awaited<ReturnType<typeof fillTenant>>;
  let b: Awaited<ReturnType<typeof fillTenant>>;
  let tables: string[];
  let aDb: TenantDb;

  beforeAll(async () => {
    a = await fillTenant();
    b = await fillTenant();
    tables = await tenantTables();
    aDb = t.app.deps.tenantDb(a.tenant._id);
  });

  it('every tenant table holds rows of both tenants (the bypass sees them)', async () => {
    for (const table of tables) {
      for (const tenant of [a.tenant, b.tenant]) {
        const n = await t.db.database.owner((db) => count(db, table, sql`where tenant_id = ${tenant._id}`));
        expect(n, `${table} has rows of ${tenant.slug}: give it one in fillTenant`).toBeGreaterThan(0);
      }
    }
  });

  it('reads: the handle sees its own rows, none of the other tenant, and the shared handle none at all', async () => {
    for (const table of tables) {
      const own = await t.db.database.owner((db) => count(db, table, sql`where tenant_id = ${a.tenant._id}`));
      expect(await aDb.run((tx) => count(tx.db, table)), `${table}: everything A's handle sees is A's`).toBe(own);
      expect(await aDb.run((tx) => count(tx.db, table, sql`where tenant_id = ${b.tenant._id}`)), `${table}: B's rows by their tenant id`).toBe(0);
      expect(await aDb.run((tx) => count(tx.db, table, sql`where tenant_id <> ${a.tenant._id}`)), `${table}: any other tenant's rows`).toBe(0);
      expect(await count(t.app.deps.db, table), `${table}: the shared handle`).toBe(0);
    }
  });

  it("writes: updates and deletes of the other tenant's rows touch nothing; moving or inserting a row into it is refused", async () => {
    for (const table of tables) {
      const before = await t.db.database.owner((db) => count(db, table, sql`where tenant_id = ${b.tenant._id}`));
      if (APPEND_ONLY.includes(table)) {
        await refused(aDb.run((tx) => tx.db.execute(sql`update ${sql.identifier(table)} set tenant_id = tenant_id where tenant_id = ${b.tenant._id}`)));
        await refused(aDb.run((tx) => tx.db.execute(sql`delete from ${sql.identifier(table)} where tenant_id = ${b.tenant._id}`)));
      }
      const touched = APPEND_ONLY.includes(table) ? 0 : await aDb.run(async (tx) => {
        const updated = (await tx.db.execute(sql`update ${sql.identifier(table)} set tenant_id = tenant_id where tenant_id = ${b.tenant._id}`)) as unknown as {
          rowCount?: number;
          affectedRows?: number;
        };
        const deleted = (await tx.db.execute(sql`delete from ${sql.identifier(table)} where tenant_id = ${b.tenant._id}`)) as unknown as {
          rowCount?: number;
          affectedRows?: number;
        };
        return (updated.rowCount ?? updated.affectedRows ?? 0) + (deleted.rowCount ?? deleted.affectedRows ?? 0);
      });
      expect(touched, `${table}: rows of B updated or deleted through A's handle`).toBe(0);
      expect(await t.db.database.owner((db) => count(db, table, sql`where tenant_id = ${b.tenant._id}`)), `${table}: B's rows`).toBe(before);

      // An A row moved to B, and a copy of an A row inserted as B's: the policy's WITH CHECK refuses both.
      const ident = sql.identifier(table);
      await refused(aDb.run((tx) => tx.db.execute(sql`update ${ident} set tenant_id = ${b.tenant._id} where tenant_id = ${a.tenant._id}`)));
      await refused(
        aDb.run((tx) =>
          tx.db.execute(sql`insert into ${ident} select (jsonb_populate_record(x, jsonb_build_object('tenant_id', ${b.tenant._id}::text))).* from ${ident} x limit 1`),
        ),
      );
      // Through the shared handle too.
      await refused(t.app.deps.db.execute(sql`insert into ${ident} select (jsonb_populate_record(null::${ident}, jsonb_build_object('tenant_id', ${b.tenant._id}::text))).*`));
    }
  });
});

describe('the bypass', () => {
  it('has each use explained in docs/decisions.md, and only the listed uses appear in the code', () => {
    const decisions = readFileSync(join(import.meta.dirname, '../docs/decisions.md'), 'utf8');
    for (const use of BYPASS_USES) expect(decisions, `docs/decisions.md names the bypass use ${use}`).toContain(`\`${use}\``);
    const used = new Set<string>();
    for (const file of sourceFiles(join(import.meta.dirname, '../src'))) {
      for (const m of readFileSync(file, 'utf8').matchAll(/bypass\(\s*'([^']+)'/g)) used.add(m[1]!);
    }
    expect([...used].sort()).toEqual([...BYPASS_USES].sort());
  });

  it('has one SECURITY DEFINER function, the public API\'s token lookup, that only the tenant role may call', async () => {
    const fns = await t.db.database.owner((db) =>
      rows<{ name: string; public: boolean; tenant: boolean }>(
        db,
        sql`select p.proname as name,
                   has_function_privilege('public', p.oid, 'execute') as public,
                   has_function_privilege(${TENANT_ROLE}, p.oid, 'execute') as tenant
            from pg_proc p join pg_namespace n on n.oid = p.pronamespace
            where n.nspname = 'public' and p.prosecdef`,
      ),
    );
    expect(fns).toEqual([{ name: 'installation_by_token_lookup', public: false, tenant: true }]);
  });

  it('is the only way out of a tenant scope: no module sets the role or the tenant setting itself', () => {
    const allowed = new Set(['db/scopes.ts', 'db/client.ts']);
    for (const file of sourceFiles(join(import.meta.dirname, '../src'))) {
      const rel = file.slice(file.indexOf('/src/') + 5);
      if (allowed.has(rel) || rel.endsWith('.test.ts') || rel.startsWith('db/migrations/')) continue;
      const text = readFileSync(file, 'utf8');
      expect(text, `${rel} changes the role or app.tenant_id`).not.toMatch(/set_config|set\s+(local\s+)?role|app\.tenant_id|reset\s+role/i);
    }
  });
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}
