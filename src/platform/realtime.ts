import type { Server as HttpServer } from 'node:http';
import { createAdapter } from '@socket.io/postgres-adapter';
import { eq } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import { Server, type Namespace, type Socket } from 'socket.io';
import type { Database, Db } from '../db/client.js';
import { tenants } from '../db/schema/tenants.js';
import type { MemberRole } from '../db/schema/users.js';
import type { JwtSigner } from './auth/jwt.js';
import { loadMember } from './auth/principal.js';
import { systemClock, type Clock } from './clock.js';

/**
 * Real-time events over socket.io (spec section 6). Services emit through this interface and never
 * see socket.io:
 *
 *   deps.realtime.toKitchen(tenantId, 'newOrder', order);
 *   deps.realtime.toOrder(tenantId, order.orderNumber, 'orderUpdate', publicView);
 *
 * Emit after the transaction commits. Emitting never throws: a lost event is logged, and clients
 * refetch on reconnect.
 *
 * Namespace `/` (no credentials needed to connect):
 *   joinKitchen    tenantId | { tenantId, token? }  -> room kitchen-<tenantId>; staff, admin or superadmin JWT,
 *                                                      from the payload or the handshake `auth.token`
 *   leaveKitchen   tenantId
 *   trackOrder     { slug, orderNumber }             -> room order-<tenantId>-<orderNumber>, public; the order must
 *                                                      exist (lookup given by the orders module)
 *   untrackOrder   { slug, orderNumber }
 * Namespace `/inventory` (handshake `auth.token` required, else connect_error `unauthorized`):
 *   joinInventory  tenantId | { tenantId }           -> room inventory-<tenantId>; superadmin any tenant,
 *                                                      staff and admin only their own
 * Staff rooms (kitchen, inventory) are re-checked every minute: when the token that joined expires
 * or the user loses the role, the socket leaves the room and gets `sessionExpired { room, reason }`
 * (`token_expired` | `access_revoked`); the client joins again with a fresh token.
 * Each join answers through the socket.io acknowledgement: `{ ok: true, room }` or
 * `{ ok: false, error, message }` with error one of the JoinError codes.
 * On PostgreSQL the rooms span every process through @socket.io/postgres-adapter (LISTEN/NOTIFY).
 */

/** Kitchen room events: spec names plus `orderUpdate` for add-items, close-tab and status changes. */
export type KitchenEvent = 'newOrder' | 'orderUpdate' | 'paymentUpdate';
export type InventoryEvent = 'stockUpdate' | 'lowStockAlert';
/** Events a customer tracking an order receives (public: no phone, email or staff data in payloads). */
export type OrderEvent = 'orderUpdate' | 'paymentUpdate';

export const rooms = {
  kitchen: (tenantId: string) => `kitchen-${tenantId}`,
  inventory: (tenantId: string) => `inventory-${tenantId}`,
  order: (tenantId: string, orderNumber: string) => `order-${tenantId}-${orderNumber}`,
};

/** Resolves a public tracking request; null when the tenant or the order does not exist. */
export type OrderLookup = (slug: string, orderNumber: string) => Promise<{ tenantId: string; orderNumber: string } | null>;

export type JoinError = 'bad_request' | 'unauthorized' | 'forbidden' | 'not_found' | 'too_many' | 'unavailable';
export type JoinAck = { ok: true; room: string } | { ok: false; error: JoinError; message: string };

export interface Realtime {
  toKitchen(tenantId: string, event: KitchenEvent, payload: unknown): void;
  toInventory(tenantId: string, event: InventoryEvent, payload: unknown): void;
  toOrder(tenantId: string, orderNumber: string, event: OrderEvent, payload: unknown): void;
  /** The orders module tells how a tracking request finds its order. Until then `trackOrder` answers `unavailable`. */
  setOrderLookup(lookup: OrderLookup): void;
  /** Serves WebSocket clients on this HTTP server (api and all roles; a worker only emits). */
  attach(server: HttpServer): void;
  /** Creates what the PostgreSQL adapter needs (its attachments table). */
  start(): Promise<void>;
  /** Disconnects this process's clients (before the HTTP server closes). */
  disconnectLocal(): void;
  close(): Promise<void>;
  /** socket.io servers sharing the rooms: 1 on PGlite, every live process on PostgreSQL. */
  serverCount(): Promise<number>;
  /**
   * Re-checks this process's staff sockets (kitchen and inventory rooms): a socket whose joining token
   * has expired, or whose user lost the role, leaves the room and gets `sessionExpired { room, reason }`.
   * Runs every minute; returns how many room memberships were dropped.
   */
  revalidate(): Promise<number>;
  readonly io: Server;
}

export interface RealtimeOptions {
  database: Database;
  db: Db;
  jwt: JwtSigner;
  log: FastifyBaseLogger;
  /** PostgreSQL adapter heartbeat (default 5000 ms) and the silence after which a process counts as gone (default 10000 ms). */
  heartbeatIntervalMs?: number;
  heartbeatTimeoutMs?: number;
  /** Orders one socket may track at once (default 10). */
  maxTrackedOrders?: number;
  /** Join attempts one socket may make per minute (default 30). */
  maxJoinsPerMinute?: number;
  clock?: Clock;
  /** How often staff sockets are re-checked (default 60 s). */
  revalidateEveryMs?: number;
}

/** Who joined a staff room, and until when the token that let them in is valid. */
interface Grant {
  userId: string;
  tenantId: string;
  roles: readonly MemberRole[];
  /** Token expiry, Unix seconds. */
  exp: number;
}

const TENANT_ID = /^[0-9a-f]{24}$/;
const SLUG = /^[a-z0-9-]{1,64}$/;
const ORDER_NUMBER = /^[0-9A-Za-z-]{1,40}$/;
const KITCHEN_ROLES: readonly MemberRole[] = ['admin', 'staff'];
const INVENTORY_ROLES: readonly MemberRole[] = ['admin', 'staff'];
const ATTACHMENTS_TABLE = 'socket_io_attachments';

const fail = (error: JoinError, message: string): JoinAck => ({ ok: false, error, message });

function ackOf(args: unknown[]): (a: JoinAck) => void {
  const last = args[args.length - 1];
  return typeof last === 'function' ? (last as (a: JoinAck) => void) : () => {};
}

function tenantIdOf(payload: unknown): unknown {
  return typeof payload === 'string' ? payload : (payload as { tenantId?: unknown } | null)?.tenantId;
}

export function createRealtime(opts: RealtimeOptions): Realtime {
  const { database, db, jwt, log } = opts;
  const clock = opts.clock ?? systemClock;
  const maxTracked = opts.maxTrackedOrders ?? 10;
  const maxJoins = opts.maxJoinsPerMinute ?? 30;
  let orderLookup: OrderLookup | null = null;
  let pool: pg.Pool | null = null;

  const adapterOptions = {
    tableName: ATTACHMENTS_TABLE,
    heartbeatInterval: opts.heartbeatIntervalMs ?? 5000,
    heartbeatTimeout: opts.heartbeatTimeoutMs ?? 10_000,
    errorHandler: (err: Error) => log.warn({ err }, 'realtime adapter error'),
  };
  if (database.kind === 'postgres') {
    if (!database.url) throw new Error('realtime: the PostgreSQL database does not expose its connection string');
    // Its own small pool: the adapter keeps one connection in LISTEN for good.
    pool = new pg.Pool({ connectionString: database.url, max: 3, application_name: 'restaurant-ops-realtime' });
    pool.on('error', (err) => log.warn({ err }, 'realtime pool error'));
    // The adapter's LISTEN client is checked out for good: its errors (a server restart) must not crash the process.
    pool.on('connect', (client) => client.on('error', (err) => log.warn({ err }, 'realtime connection error')));
  }
  const io = new Server({
    serveClient: false,
    maxHttpBufferSize: 16 * 1024,
    ...(pool ? { adapter: createAdapter(pool, adapterOptions) } : {}),
  });
  const main = io.of('/');
  const inventory = io.of('/inventory');

  async function tenantState(tenantId: string): Promise<'active' | 'inactive' | null> {
    const [row] = await db.select({ isActive: tenants.isActive }).from(tenants).where(eq(tenants.id, tenantId));
    return row ? (row.isActive ? 'active' : 'inactive') : null;
  }

  /** The JWT's user may join the tenant's room: superadmin, or a member with one of `roles`. */
  async function authorize(token: unknown, tenantId: unknown, roles: readonly MemberRole[]): Promise<JoinAck | Grant> {
    if (typeof tenantId !== 'string' || !TENANT_ID.test(tenantId)) return fail('bad_request', 'tenantId must be a tenant id');
    if (typeof token !== 'string' || token === '') return fail('unauthorized', 'A bearer token is needed');
    const claims = await jwt.verify(token);
    if (!claims) return fail('unauthorized', 'Invalid or expired token');
    const found = await loadMember(db, claims.sub, tenantId);
    if (!found) return fail('unauthorized', 'Invalid or expired token');
    const state = await tenantState(tenantId);
    if (!state) return fail('not_found', 'Tenant not found');
    if (state === 'inactive') return fail('forbidden', 'This tenant is deactivated');
    const grant: Grant = { userId: claims.sub, tenantId, roles, exp: claims.exp };
    if (found.principal.isSuperadmin) return grant;
    const role = found.membership?.role;
    if (!role) return fail('forbidden', 'You are not a member of this tenant');
    if (!roles.includes(role)) return fail('forbidden', `Joining needs one of the roles: ${roles.join(', ')}, superadmin`);
    return grant;
  }

  /** Joins a staff room and remembers the grant for `revalidate`. */
  async function joinStaffRoom(socket: Socket, room: string, grant: Grant): Promise<JoinAck> {
    await socket.join(room);
    ((socket.data.grants ??= new Map<string, Grant>()) as Map<string, Grant>).set(room, grant);
    return { ok: true, room };
  }

  async function revalidate(): Promise<number> {
    const now = clock.now().getTime();
    const verdicts = new Map<string, Promise<boolean>>();
    const stillAllowed = (g: Grant) => {
      const key = `${g.userId}:${g.tenantId}:${g.roles.join(',')}`;
      let v = verdicts.get(key);
      if (!v) {
        v = Promise.all([loadMember(db, g.userId, g.tenantId), tenantState(g.tenantId)]).then(([found, state]) =>
          Boolean(found && state === 'active' && (found.principal.isSuperadmin || (found.membership && g.roles.includes(found.membership.role)))),
        );
        verdicts.set(key, v);
      }
      return v;
    };
    let dropped = 0;
    for (const nsp of [main, inventory]) {
      for (const socket of nsp.sockets.values()) {
        const grants = socket.data.grants as Map<string, Grant> | undefined;
        if (!grants) continue;
        for (const [room, g] of grants) {
          const reason = g.exp * 1000 <= now ? 'token_expired' : (await stillAllowed(g)) ? null : 'access_revoked';
          if (!reason) continue;
          grants.delete(room);
          await socket.leave(room);
          socket.emit('sessionExpired', { room, reason });
          dropped++;
        }
      }
    }
    return dropped;
  }

  /** A small per-socket budget of join attempts: each one costs database reads. */
  function spend(socket: Socket): boolean {
    const now = Date.now();
    const b = (socket.data.joins ??= { since: now, count: 0 }) as { since: number; count: number };
    if (now - b.since > 60_000) {
      b.since = now;
      b.count = 0;
    }
    return ++b.count <= maxJoins;
  }

  function on(socket: Socket, event: string, handler: (payload: unknown) => Promise<JoinAck>) {
    socket.on(event, async (...args: unknown[]) => {
      const ack = ackOf(args);
      const payload = typeof args[0] === 'function' ? undefined : args[0];
      try {
        ack(spend(socket) ? await handler(payload) : fail('too_many', 'Too many join attempts; wait a minute'));
      } catch (err) {
        log.error({ err, event }, 'realtime join failed');
        ack(fail('unavailable', 'Try again later'));
      }
    });
  }

  main.on('connection', (socket) => {
    on(socket, 'joinKitchen', async (payload) => {
      const tenantId = tenantIdOf(payload);
      const token = (payload as { token?: unknown } | null)?.token ?? socket.handshake.auth?.token;
      const grant = await authorize(token, tenantId, KITCHEN_ROLES);
      if ('ok' in grant) return grant;
      return joinStaffRoom(socket, rooms.kitchen(grant.tenantId), grant);
    });

    on(socket, 'leaveKitchen', async (payload) => {
      const tenantId = tenantIdOf(payload);
      if (typeof tenantId !== 'string' || !TENANT_ID.test(tenantId)) return fail('bad_request', 'tenantId must be a tenant id');
      const room = rooms.kitchen(tenantId);
      await socket.leave(room);
      (socket.data.grants as Map<string, Grant> | undefined)?.delete(room);
      return { ok: true, room };
    });

    on(socket, 'trackOrder', async (payload) => {
      const { slug, orderNumber } = (payload ?? {}) as { slug?: unknown; orderNumber?: unknown };
      if (typeof slug !== 'string' || !SLUG.test(slug) || typeof orderNumber !== 'string' || !ORDER_NUMBER.test(orderNumber)) {
        return fail('bad_request', 'slug and orderNumber are required');
      }
      if (!orderLookup) return fail('unavailable', 'Order tracking is not available');
      const tracked = (socket.data.tracked ??= new Map<string, string>()) as Map<string, string>;
      const key = `${slug}/${orderNumber}`;
      if (!tracked.has(key) && tracked.size >= maxTracked) return fail('too_many', `At most ${maxTracked} orders per connection`);
      const found = await orderLookup(slug, orderNumber);
      if (!found) return fail('not_found', 'Order not found');
      const room = rooms.order(found.tenantId, found.orderNumber);
      tracked.set(key, room);
      await socket.join(room);
      return { ok: true, room };
    });

    on(socket, 'untrackOrder', async (payload) => {
      const { slug, orderNumber } = (payload ?? {}) as { slug?: unknown; orderNumber?: unknown };
      if (typeof slug !== 'string' || typeof orderNumber !== 'string') return fail('bad_request', 'slug and orderNumber are required');
      const tracked = (socket.data.tracked ?? new Map()) as Map<string, string>;
      const key = `${slug}/${orderNumber}`;
      const room = tracked.get(key);
      if (room) {
        tracked.delete(key);
        await socket.leave(room);
      }
      return { ok: true, room: room ?? '' };
    });
  });

  inventory.use(async (socket, next) => {
    try {
      const token = socket.handshake.auth?.token;
      const claims = typeof token === 'string' && token ? await jwt.verify(token) : null;
      if (!claims) return next(new Error('unauthorized'));
      next();
    } catch (err) {
      log.error({ err }, 'realtime handshake failed');
      next(new Error('unavailable'));
    }
  });

  inventory.on('connection', (socket) => {
    on(socket, 'joinInventory', async (payload) => {
      const tenantId = tenantIdOf(payload);
      const grant = await authorize(socket.handshake.auth?.token, tenantId, INVENTORY_ROLES);
      if ('ok' in grant) return grant;
      return joinStaffRoom(socket, rooms.inventory(grant.tenantId), grant);
    });
  });

  function emit(nsp: Namespace, room: string, event: string, payload: unknown) {
    try {
      nsp.to(room).emit(event, payload);
    } catch (err) {
      log.warn({ err, room, event }, 'realtime emit failed');
    }
  }

  let closing: Promise<void> | null = null;
  let attached = false;
  const sweeper = setInterval(() => {
    revalidate().catch((err) => log.warn({ err }, 'realtime revalidation failed'));
  }, opts.revalidateEveryMs ?? 60_000);
  sweeper.unref();
  function disconnectLocal() {
    for (const nsp of [main, inventory]) nsp.local.disconnectSockets(true);
  }

  return {
    io,
    toKitchen: (tenantId, event, payload) => emit(main, rooms.kitchen(tenantId), event, payload),
    toInventory: (tenantId, event, payload) => emit(inventory, rooms.inventory(tenantId), event, payload),
    toOrder: (tenantId, orderNumber, event, payload) => emit(main, rooms.order(tenantId, orderNumber), event, payload),
    setOrderLookup(lookup) {
      orderLookup = lookup;
    },
    attach(server) {
      io.attach(server);
      attached = true;
    },
    async start() {
      if (!pool) return;
      try {
        await pool.query(
          `CREATE TABLE IF NOT EXISTS ${ATTACHMENTS_TABLE} (id bigserial UNIQUE, created_at timestamptz DEFAULT now(), payload bytea)`,
        );
      } catch (err) {
        // Two processes creating it at the same instant: one wins, the other sees a duplicate.
        const code = (err as { code?: string }).code;
        if (code !== '23505' && code !== '42P07') throw err;
      }
    },
    disconnectLocal,
    close() {
      closing ??= (async () => {
        clearInterval(sweeper);
        disconnectLocal();
        // io.close() also closes the engine, which exists only once attached to an HTTP server.
        if (attached) await io.close();
        else await Promise.allSettled([main, inventory].map(async (nsp) => nsp.adapter.close()));
        if (pool) {
          // The adapter may still be acquiring its LISTEN client (it connects in the background); closing
          // it again releases a client that arrived late. pool.end() would otherwise wait for it forever.
          for (let i = 0; i < 50 && pool.totalCount > pool.idleCount; i++) {
            await new Promise((r) => setTimeout(r, 100));
            for (const nsp of [main, inventory]) nsp.adapter.close();
          }
          await pool.end();
        }
      })();
      return closing;
    },
    serverCount: () => main.adapter.serverCount(),
    revalidate,
  };
}
