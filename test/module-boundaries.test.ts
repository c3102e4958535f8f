import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { getTableName, is, Table } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { MODULES } from '../src/app.js';

/**
 * The module rules of docs/contributing.md ("Adding a module"), checked on the source text:
 * - a module imports another module only through its `index.ts`;
 * - `src/platform`, `src/integrations` and `src/db` never import `src/modules`;
 * - every table of `src/db/schema` belongs to one module (its `tables`) or to the platform, and only
 *   its owner's code imports it (the platform's reads of module tables are listed in PLATFORM_READS, a
 *   module's read-only reads of other modules' tables in MODULE_READS; those files write nothing);
 * - every folder of `src/modules` has an `index.ts` whose module is in the app's list, under the folder's name;
 * - modules declare jobs in their entry: no `jobs.register` / `jobs.schedule`, no `jobs.send('name')`.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Tables no module owns: platform mechanisms' own storage. */
const PLATFORM_TABLES = new Set(['idempotency_keys', 'rate_limit_hits', 'rate_limit_windows']);

/** Platform files that read a module's table (read only, for the guard chain), by SQL table name. */
const PLATFORM_READS: Record<string, string[]> = {
  'src/platform/tenancy.ts': ['tenants'], // the tenant resolver behind `:slug` (and `byId`)
  'src/platform/auth/principal.ts': ['users', 'memberships'], // the principal and membership behind a token
};

/**
 * Module files that read other modules' tables, read only, by SQL table name. Each is a decision
 * (docs/decisions.md); such a file holds selects only: an insert, update or delete in it is a violation.
 */
const MODULE_READS: Record<string, string[]> = {
  // Branch reports (issue 11): each report is one aggregate select across orders, their payments, the
  // shifts and the branch's PDVs, so the database sums over an index range in one round trip; going through
  // the owners' services would fetch every row of the period into the process to add it up there.
  'src/modules/reports/reports.queries.ts': ['orders', 'payments', 'shifts', 'pdvs', 'branches'],
  // Demand prediction's daily snapshot (issue 13): units sold per menu item in a day, one aggregate select over
  // the day's orders and their lines, so the database sums them instead of the process reading every order.
  'src/modules/purchasing/snapshots.queries.ts': ['orders'],
};

/** A write in a file of MODULE_READS: a drizzle insert/update/delete or the SQL statements. */
const WRITE = /\.(insert|update|delete)\s*\(|\b(insert\s+into|update\s+\S+\s+set|delete\s+from|truncate)\b/i;

type SourceFiles = Map<string, string>;

interface ImportRef {
  /** Path from the repository root, posix, with `.ts` (`src/modules/menu/index.ts`); the raw specifier for packages. */
  target: string;
  /** Value bindings by their exported name (`{ a as b, type C }` gives `a`); `*` for a namespace import. */
  names: string[];
  typeOnly: boolean;
}

const IMPORT = /(?:^|[\n;])\s*(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g;

function bindingsOf(clause: string): string[] {
  const names: string[] = [];
  const braces = clause.match(/\{([^}]*)\}/);
  if (braces) {
    for (const part of braces[1].split(',')) {
      const p = part.trim();
      if (!p || p.startsWith('type ')) continue;
      names.push(p.split(/\s+as\s+/)[0].trim());
    }
  }
  if (/\*\s+as\s+\w+/.test(clause)) names.push('*');
  return names;
}

/** The imports and re-exports of one file (relative specifiers resolved from `file`). */
function importsOf(file: string, source: string): ImportRef[] {
  const refs: ImportRef[] = [];
  for (const m of source.matchAll(IMPORT)) {
    const spec = m[4] ?? m[5] ?? m[6];
    const target = spec.startsWith('.') ? posix.normalize(posix.join(posix.dirname(file), spec)).replace(/\.js$/, '.ts') : spec;
    const typeOnly = !!m[2];
    refs.push({ target, names: m[4] && !typeOnly ? bindingsOf(m[3]) : [], typeOnly });
  }
  return refs;
}

const moduleOf = (file: string) => /^src\/modules\/([^/]+)\//.exec(file)?.[1] ?? null;

interface Ownership {
  /** SQL table name -> owning module, or `platform`. */
  owner: Map<string, string>;
  /** `src/db/schema/x.ts` -> exported binding -> SQL table name (tables only). */
  tablesOf: Map<string, Map<string, string>>;
}

/** Every rule above, for a set of source files; one line per violation. */
function violations(files: SourceFiles, own: Ownership): string[] {
  const found: string[] = [];
  for (const [file, source] of files) {
    const mod = moduleOf(file);
    const layer = /^src\/(platform|integrations|db)\//.exec(file)?.[1] ?? null;
    for (const ref of importsOf(file, source)) {
      const target = moduleOf(ref.target);
      if (target && layer) found.push(`${file}: src/${layer} must not import a module (${ref.target})`);
      if (target && mod && target !== mod && ref.target !== `src/modules/${target}/index.ts`) {
        found.push(`${file}: imports ${ref.target}; another module is reached only through src/modules/${target}/index.ts`);
      }
      const tables = own.tablesOf.get(ref.target);
      if (!tables || file.startsWith('src/db/')) continue;
      const used = ref.names.includes('*') ? [...tables.values()] : ref.names.flatMap((n) => (tables.has(n) ? [tables.get(n)!] : []));
      for (const table of used) {
        const owner = own.owner.get(table);
        const allowed =
          (mod !== null && owner === mod) ||
          (mod !== null && MODULE_READS[file]?.includes(table)) ||
          (layer === 'platform' && (owner === 'platform' || PLATFORM_READS[file]?.includes(table)));
        if (!allowed) found.push(`${file}: uses the table ${table}, which belongs to ${owner ? `the ${owner} module` : 'no module'}`);
      }
    }
    if (MODULE_READS[file] && WRITE.test(source)) found.push(`${file}: reads other modules' tables (MODULE_READS) and must not write`);
    if (mod && !/\.test\.ts$/.test(file)) {
      if (/\bjobs\.(register|schedule|unschedule)\s*[(<]/.test(source)) {
        found.push(`${file}: registers or schedules a job; declare it in the module entry (jobs, schedules)`);
      }
      if (/\bjobs\.send\s*(<[^>]*>)?\(\s*['"`]/.test(source)) found.push(`${file}: sends a job by name; send its declaration (defineJob)`);
    }
  }
  return found;
}

function sourceFiles(dir: string, files: SourceFiles = new Map()): SourceFiles {
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = posix.join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) sourceFiles(path, files);
    else if (name.endsWith('.ts')) files.set(path, readFileSync(join(ROOT, path), 'utf8'));
  }
  return files;
}

async function ownership(): Promise<Ownership & { unowned: string[]; twice: string[] }> {
  const owner = new Map<string, string>();
  const twice: string[] = [];
  const claim = (table: string, by: string) => {
    if (owner.has(table)) twice.push(`${table}: ${owner.get(table)} and ${by}`);
    owner.set(table, by);
  };
  for (const m of MODULES) for (const t of m.tables) claim(getTableName(t), m.name);
  for (const t of PLATFORM_TABLES) claim(t, 'platform');
  const tablesOf = new Map<string, Map<string, string>>();
  const unowned: string[] = [];
  for (const name of readdirSync(join(ROOT, 'src/db/schema'))) {
    if (!name.endsWith('.ts')) continue;
    const path = `src/db/schema/${name}`;
    const exported = (await import(/* @vite-ignore */ pathToFileURL(join(ROOT, path)).href)) as Record<string, unknown>;
    const tables = new Map<string, string>();
    for (const [binding, value] of Object.entries(exported)) {
      if (!is(value, Table)) continue;
      const table = getTableName(value);
      tables.set(binding, table);
      if (!owner.has(table) && !unowned.includes(table)) unowned.push(table);
    }
    tablesOf.set(path, tables);
  }
  return { owner, tablesOf, unowned, twice };
}

describe('module boundaries', () => {
  it('holds in src/', async () => {
    const own = await ownership();
    expect(own.twice, 'tables claimed twice').toEqual([]);
    expect(own.unowned, 'tables of src/db/schema that no module lists in `tables` (nor PLATFORM_TABLES)').toEqual([]);
    const files = sourceFiles('src');
    expect(files.size).toBeGreaterThan(50);
    expect(violations(files, own)).toEqual([]);
  });

  it('every module folder has an entry whose module is in the app, under the folder name', () => {
    const folders = readdirSync(join(ROOT, 'src/modules')).filter((n) => statSync(join(ROOT, 'src/modules', n)).isDirectory());
    const listed = MODULES.map((m) => m.name);
    for (const folder of folders) {
      expect(readdirSync(join(ROOT, 'src/modules', folder)), `src/modules/${folder}`).toContain('index.ts');
      expect(listed, `the module of src/modules/${folder}/index.ts in MODULES (src/app.ts)`).toContain(folder);
    }
    expect(listed.sort()).toEqual(folders.sort());
  });

  it('reports each kind of crossing (the check itself)', async () => {
    const own = await ownership();
    const crossing: SourceFiles = new Map([
      ['src/modules/orders/x.service.ts', "import { menuService } from '../menu/menu.service.js';\nimport type { MenuService } from '../menu/index.js';"],
      ['src/modules/orders/x.queries.ts', "import { and } from 'drizzle-orm';\nimport {\n  tenants,\n  type TenantRow,\n} from '../../db/schema/tenants.js';"],
      ['src/modules/users/y.queries.ts', "import * as schema from '../../db/schema/tables.js';"],
      ['src/modules/menu/z.ts', "export { menuItems as items } from '../../db/schema/menu.js';"],
      ['src/platform/realtime.ts', "import { tenants } from '../db/schema/tenants.js';"],
      ['src/platform/w.ts', "const m = await import('../modules/menu/index.js');"],
      ['src/integrations/v.ts', "import type { OrdersService } from '../modules/orders/index.js';"],
      ['src/seed.ts', "import { users } from './db/schema/users.js';"],
      ['src/modules/auth/a.service.ts', "jobs.register('auth.x', handler);\nawait jobs.send<{ a: 1 }>('auth.x', {});"],
      ['src/modules/reports/reports.queries.ts', "import { orders } from '../../db/schema/orders.js';\nawait db.update(orders).set({ total: 0 });"],
      ['src/modules/reports/reports.service.ts', "import { payments } from '../../db/schema/payments.js';"],
    ]);
    const found = violations(crossing, own);
    expect(found).toEqual([
      expect.stringContaining('src/modules/orders/x.service.ts: imports src/modules/menu/menu.service.ts'),
      expect.stringContaining('src/modules/orders/x.queries.ts: uses the table tenants, which belongs to the tenants module'),
      expect.stringContaining('src/modules/users/y.queries.ts: uses the table dining_tables'),
      expect.stringContaining('src/modules/users/y.queries.ts: uses the table reservations'),
      expect.stringContaining('src/platform/realtime.ts: uses the table tenants'),
      expect.stringContaining('src/platform/w.ts: src/platform must not import a module'),
      expect.stringContaining('src/integrations/v.ts: src/integrations must not import a module'),
      expect.stringContaining('src/seed.ts: uses the table users'),
      expect.stringContaining('src/modules/auth/a.service.ts: registers or schedules a job'),
      expect.stringContaining('src/modules/auth/a.service.ts: sends a job by name'),
      expect.stringContaining('src/modules/reports/reports.queries.ts: reads other modules\' tables (MODULE_READS) and must not write'),
      expect.stringContaining('src/modules/reports/reports.service.ts: uses the table payments, which belongs to the payments module'),
    ]);
    // Allowed: a module's entry, its own tables, types from another entry, the platform's and modules' listed reads.
    const fine: SourceFiles = new Map([
      ['src/modules/orders/ok.ts', "import { menuModule } from '../menu/index.js';\nimport { orders } from '../../db/schema/orders.js';"],
      ['src/modules/menu/menu.routes.ts', "import type { MenuService } from './menu.service.js';\nimport { menuItems } from '../../db/schema/menu.js';"],
      ['src/platform/tenancy.ts', "import { tenants } from '../db/schema/tenants.js';"],
      ['src/platform/idempotency.ts', "import { idempotencyKeys } from '../db/schema/idempotency.js';"],
      ['src/modules/reports/reports.queries.ts', "import { orders } from '../../db/schema/orders.js';\nawait db.execute(sql`select ${orders.total} from ${orders}`);"],
    ]);
    expect(violations(fine, own)).toEqual([]);
  });
});
