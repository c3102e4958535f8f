import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Table } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { TenantDb } from '../db/scopes.js';
import type { Integrations } from '../integrations/registry.js';
import type { Clock } from './clock.js';
import type { Deps } from './deps.js';
import type { RouteApp } from './http.js';
import type { Idempotency } from './idempotency.js';
import type { JobDef, JobHandler, JobHandlers, JobMap, Jobs } from './jobs.js';
import type { RateLimiter } from './rate-limit.js';

/**
 * The shape of a business module (`src/modules/<name>/index.ts` exports one, made by `defineModule`):
 *
 *   export const menuModule = defineModule({
 *     name: 'menu',
 *     needs: [branchesModule],                       // other modules' entries: their services arrive typed, by name
 *     tables: [menuItems, menuCategories],           // drizzle tables only this module's code touches
 *     services: (deps, { branches }) => ({ menu: menuService(deps, branches) }),
 *     routes: (app, services) => menuRoutes(app, services),
 *     jobs: { declared: menuJobs, handlers: (s) => ({ reindex: (data) => s.menu.reindex(data) }) },
 *     schedules: [cron(menuJobs.reindex, '0 3 * * *')],
 *     demoSeed: (services, demo) => seedDemoMenu(services.menu, demo.tenant.db),
 *   });
 *
 * `app.ts` lists the modules; `buildModules` builds their services in dependency order, registers their
 * job handlers and schedules, and `registerRoutes` mounts their routes inside the guarded scope.
 * `test/module-boundaries.test.ts` holds the other rules (imports only through `index.ts`, own tables only).
 */

/** What a module's services are built from: the platform deps and the external systems. */
export interface ModuleDeps extends Deps {
  integrations: Integrations;
}

/** Platform services the routes of every module may use, beside their own and their needs'. */
export interface PlatformServices {
  rateLimits: RateLimiter;
  idempotency: Idempotency;
  config: Config;
}

/** A login created by a seed, printed once at the first start. */
export interface SeedLogin {
  who: string;
  email: string;
  password: string | null;
  tenant?: string;
}

/** What a module's demo seed gets: the demo tenant (already created) and where to report logins. */
export interface DemoSeedContext {
  tenant: { id: string; slug: string; timezone: string; db: TenantDb };
  /** Password of the demo tenant's users. */
  password: string;
  clock: Clock;
  addLogin(login: SeedLogin): void;
}

/** The least a module must be to be named in another's `needs`: its name and what its services are. */
export interface ModuleRef<Own extends object = object> {
  readonly name: string;
  services(deps: ModuleDeps, needs: never): Own;
}

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
type OwnOf<M> = M extends ModuleRef<infer S> ? S : never;

/** The services of a list of modules, merged by name: `ServicesOf<[typeof menuModule]>` is `{ menu: MenuService }`. */
export type ServicesOf<L extends readonly ModuleRef[]> = UnionToIntersection<OwnOf<L[number]>>;

/** A module's job handlers, one per declared job (the compiler refuses a missing one). */
export interface ModuleJobs<M extends JobMap, S> {
  readonly declared: M;
  handlers(services: S): JobHandlers<M>;
}

/** A cron schedule of a declared job (make it with `cron`, which checks the data against the payload). */
export interface Schedule {
  readonly job: JobDef<never>;
  /** 5 fields (minutes), UTC unless `tz`. */
  readonly cron: string;
  readonly data?: object;
  readonly tz?: string;
}

/** `cron(paymentJobs.sweep, '* * * * *')`: runs the job on a schedule kept in the database (one per queue for all processes). */
export function cron<T extends object>(job: JobDef<T>, expression: string, data?: T, options: { tz?: string } = {}): Schedule {
  return { job, cron: expression, data, tz: options.tz };
}

export interface ModuleDefinition<
  Name extends string = string,
  Own extends object = object,
  Needs extends readonly ModuleRef[] = readonly ModuleRef[],
  Declared extends JobMap = JobMap,
> {
  readonly name: Name;
  /** The modules whose services this one uses; they are built first and passed to `services` by name. */
  readonly needs?: Needs;
  /** The tables it owns (from `src/db/schema`): no other module's code reads or writes them. */
  readonly tables: readonly Table[];
  /** Its services by name (`{ orders, payments }`); the names are those of `app.services`. */
  services(deps: ModuleDeps, needs: ServicesOf<Needs>): Own;
  routes?(app: RouteApp, services: Own & ServicesOf<Needs> & PlatformServices): void;
  readonly jobs?: ModuleJobs<Declared, Own & ServicesOf<Needs>>;
  readonly schedules?: readonly Schedule[];
  /** Fills the demo tenant at the first start (`SEED_DEMO`); runs in dependency order. */
  demoSeed?(services: Own & ServicesOf<Needs>, demo: DemoSeedContext): Promise<unknown>;
}

/** Any module, as the app's list holds them. */
export type AnyModule = ModuleDefinition<string, object, readonly ModuleRef[], JobMap>;

/** Types a module definition (no runtime work): `Own` from `services`, the needs' services from `needs`. */
export function defineModule<
  const Name extends string,
  Own extends object,
  const Needs extends readonly ModuleRef[] = [],
  Declared extends JobMap = Record<never, never>,
>(definition: ModuleDefinition<Name, Own, Needs, Declared>): ModuleDefinition<Name, Own, Needs, Declared> {
  return definition;
}

/** The modules in an order where each comes after those it needs (the list's order otherwise). */
export function dependencyOrder<L extends readonly AnyModule[]>(modules: L): AnyModule[] {
  const byName = new Map<string, AnyModule>();
  for (const m of modules) {
    if (byName.has(m.name)) throw new Error(`modules: ${m.name} is listed twice`);
    byName.set(m.name, m);
  }
  const ordered: AnyModule[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (m: AnyModule, path: string[]) => {
    if (state.get(m.name) === 'done') return;
    if (state.get(m.name) === 'visiting') throw new Error(`modules: dependency cycle ${[...path, m.name].join(' -> ')}`);
    state.set(m.name, 'visiting');
    for (const need of m.needs ?? []) {
      const found = byName.get(need.name);
      if (!found) throw new Error(`modules: ${m.name} needs ${need.name}, which is not in the module list`);
      visit(found, [...path, m.name]);
    }
    state.set(m.name, 'done');
    ordered.push(m);
  };
  for (const m of modules) visit(m, []);
  return ordered;
}

/** The modules built by `buildModules`: every service by name, and what each module was given. */
export interface BuiltModules<S> {
  services: S;
  /** A module's own services and those of the modules it needs (what its routes, jobs and demo seed get). */
  viewOf(name: string): object;
  /** The modules in dependency order. */
  ordered: AnyModule[];
  /** Every module's cron schedules, for `startSchedules` once the job queue runs. */
  schedules: Schedule[];
}

/**
 * Builds the services of every module in dependency order (each gets the services of the modules it
 * needs, by name), then registers their job handlers on `jobs`. A service name used twice, a job
 * without a handler or a schedule of a job the module does not declare is an error.
 */
export function buildModules<const L extends readonly AnyModule[]>(modules: L, deps: ModuleDeps, jobs: Jobs): BuiltModules<ServicesOf<L>> {
  const ordered = dependencyOrder(modules);
  const all: Record<string, object> = {};
  const owns = new Map<string, Record<string, object>>();
  const views = new Map<string, object>();
  for (const m of ordered) {
    const needs: Record<string, object> = Object.assign({}, ...(m.needs ?? []).map((n) => owns.get(n.name)));
    const own = m.services(deps, needs as never) as Record<string, object>;
    for (const key of Object.keys(own)) {
      if (key in all) throw new Error(`modules: ${m.name} provides a service named ${key}, which another module provides`);
    }
    Object.assign(all, own);
    owns.set(m.name, own);
    views.set(m.name, { ...needs, ...own });
  }
  const schedules: Schedule[] = [];
  for (const m of ordered) {
    const declared = Object.entries(m.jobs?.declared ?? {});
    if (m.jobs) {
      const handlers = m.jobs.handlers(views.get(m.name) as never) as Record<string, JobHandler<never> | undefined>;
      for (const [key, job] of declared) {
        const handler = handlers[key];
        if (typeof handler !== 'function') throw new Error(`modules: ${m.name} declares the job ${job.name} without a handler`);
        jobs.register(job, handler);
      }
    }
    for (const s of m.schedules ?? []) {
      if (!declared.some(([, job]) => job === s.job)) throw new Error(`modules: ${m.name} schedules ${s.job.name}, which it does not declare`);
      schedules.push(s);
    }
  }
  return { services: all as ServicesOf<L>, viewOf: (name) => views.get(name)!, ordered, schedules };
}

/** Stores the modules' cron schedules (call once the job queue has started; every role may). */
export async function startSchedules(built: BuiltModules<unknown>, jobs: Jobs) {
  for (const s of built.schedules) await jobs.schedule(s.job, s.cron, s.data, { tz: s.tz });
}

/** Mounts every module's routes, in the list's order, on `app` (the scope that carries the guard chain). */
export function registerRoutes(app: FastifyInstance, built: BuiltModules<unknown>, modules: readonly AnyModule[], platform: PlatformServices) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  for (const m of modules) m.routes?.(typed, { ...built.viewOf(m.name), ...platform } as never);
}

/**
 * Runs every module's demo seed, in dependency order, for the demo tenant. Each is given `services`,
 * every service by name (`app.services`): it uses its module's own and those of the modules it needs.
 */
export async function seedDemo(modules: readonly AnyModule[], services: object, demo: DemoSeedContext) {
  for (const m of dependencyOrder(modules)) await m.demoSeed?.(services as never, demo);
}
