import type { Server as HttpServer } from 'node:http';
import { createAdapter } from '@socket.io/postgres-adapter';
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import { Server, type Namespace, type Socket } from 'socket.io';
import type { Database, Db } from '../db/client.js';
import { isId } from '../db/ids.js';
import { scopeOf, type BranchScope } from './auth/guards.js';
import type { JwtSigner } from './auth/jwt.js';
import { ROOM_ROLES } from './auth/permissions.js';
import { loadMember, tokenIsCurrent } from './auth/principal.js';
import { systemClock, type Clock } from './clock.js';
import { tenantResolver, type TenantResolver } from './tenancy.js';

/**
 * Real-time events over socket.io (spec section 6). Services emit through this interface and never
 * see socket.io:
 *
 *   deps.realtime.toKitchen(tenantId, 'newOrder', { order }, { pdvId, branchId });
 *   deps.realtime.toOrder(tenantId, order.orderNumber, 'orderUpdate', publicView);
 *
 * Emit after the transaction commits. Emitting never throws: a lost event is logged, and clients
 * refetch on reconnect. Payloads of the order-tracking room are public: the orders module sends only
 * its tracking view there (never a receipt token, payment ids, phone or e-mail).
 *
 * Namespace `/` (no credentials needed to connect):
 *   joinKitchen    tenantId | { tenantId, token? }  -> kitchen room of the tenant; admin, branch_manager, staff or
 *                                                      superadmin JWT, from the payload or the handshake `auth.token`.
 *                                                      Restaurants only (mercado, padaria: `feature_unavailable`).
 *   leaveKitchen   tenantId
 *   trackOrder     { slug, orderNumber }             -> room order-<tenantId>-<orderNumber>, public; the order must
 *                                                      exist (lookup given by the orders module)
 *   untrackOrder   { slug, orderNumber }
 * Namespace `/inventory` (handshake `auth.token` required, else connect_error `unauthorized`):
 *   joinInventory  tenantId | { tenantId }           -> room inventory-<tenantId>; superadmin any tenant,
 *                                                      staff and admin only their own
 *
 * The kitchen follows branch scope (as the orders list does). The join answers `room: kitchen-<tenantId>`,
 * but the socket joins the socket.io rooms of its scope: `kitchen-<t>` for admins and superadmins (every
 * order), else `kitchen-<t>-pdv-<pdvId>` per assigned PDV, `kitchen-<t>-branch-<branchId>` per assigned
 * branch, and `kitchen-<t>-no-pdv` (orders without a PDV are tenant-wide). An order's event is one emit to
 * `kitchen-<t>`, its PDV's and its branch's rooms (or `kitchen-<t>-no-pdv`); socket.io sends it once per socket.
 *
 * Staff rooms (kitchen, inventory) are re-checked: at once for a user whose membership, role,
 * assignments, password or session version changed (`userChanged`, wired to the member cache's
 * `onForget`; on PostgreSQL told to the other processes with `serverSideEmit`), and every minute for
 * all (token expiry, and a safety net for a lost notification). A socket that lost access leaves the
 * room and gets `sessionExpired { room, reason }`: `token_expired` (the joining token expired, or its
 * session was ended, e.g. by a password change), `access_revoked` (membership, role, tenant or
 * business type), `scope_changed` (other PDVs or branches assigned); the client joins again.
 * Each join answers through the socket.io acknowledgement: `{ ok: true, room }` or
 * `{ ok: false, error, message }` with error one of the JoinError codes.
 * On PostgreSQL the rooms span every process through @socket.io/postgres-adapter (LISTEN/NOTIFY); it
 * publishes on one connection, which keeps one process's events in the order they were emitted.
 */

/** Kitchen room events: spec names plus `orderUpdate` for add-items, close-tab and status changes. */
export type KitchenEvent = 'newOrder' | 'orderUpdate' | 'paymentUpdate';
export type InventoryEvent = 'stockUpdate' | 'lowStockAlert';
/** Events a customer tracking an order receives (public: no phone, email, payment ids or receipt token). */
export type OrderEvent = 'orderUpdate' | 'paymentUpdate';

/** Where an order belongs for the kitchen's branch scope: its PDV and that PDV's branch (null, null: tenant-wide). */
export interface KitchenTarget {
  pdvId: string | null;
  branchId: string | null;
}

export const rooms = {
  /** The name a kitchen join answers with, and the room of sockets that see every order of the tenant. */
  kitchen: (tenantId: string) => `kitchen-${tenantId}`,
  kitchenPdv: (tenantId: string, pdvId: string) => `kitchen-${tenantId}-pdv-${pdvId}`,
  kitchenBranch: (tenantId: string, branchId: string) => `kitchen-${tenantId}-branch-${branchId}`,
  kitchenNoPdv: (tenantId: string) => `kitchen-${tenantId}-no-pdv`,
  inventory: (tenantId: string) => `inventory-${tenantId}`,
  order: (tenantId: string, orderNumber: string) => `order-${tenantId}-${orderNumber}`,
};

/** The socket.io rooms a kitchen socket with this branch scope joins. */
export function kitchenRoomsFor(tenantId: string, scope: BranchScope): string[] {
  if (scope.all) return [rooms.kitchen(tenantId)];
  return [
    rooms.kitchenNoPdv(tenantId),
    ...[...new Set(scope.pdvIds)].map((id) => rooms.kitchenPdv(tenantId, id)),
    ...[...new Set(scope.branchIds)].map((id) => rooms.kitchenBranch(tenantId, id)),
  ].sort();
}

/** The rooms an order's kitchen event goes to (one emit: a socket in several of them gets it once). */
export function kitchenRoomsOf(tenantId: string, target: KitchenTarget): string[] {
  if (!target.pdvId) return [rooms.kitchen(tenantId), rooms.kitchenNoPdv(tenantId)];
  return [
    rooms.kitchen(tenantId),
    rooms.kitchenPdv(tenantId, target.pdvId),
    ...(target.branchId ? [rooms.kitchenBranch(tenantId, target.branchId)] : []),
  ];
}

/** Resolves a public tracking request; null when the tenant or the order does not exist. */
export type OrderLookup = (slug: string, orderNumber: string) => Promise<{ tenantId: string; orderNumber: string } | null>;

export type JoinError = 'bad_request' | 'unauthorized' | 'forbidden' | 'not_found' | 'feature_unavailable' | 'too_many' | 'unavailable';
export type JoinFailure = { ok: false; error: JoinError; message: string };
export type JoinAck = { ok: true; room: string } | JoinFailure;
export type SessionExpiredReason = 'token_expired' | 'access_revoked' | 'scope_changed';

export interface Realtime {
  /** An order's event to the kitchen sockets whose branch scope covers `target`. */
  toKitchen(tenantId: string, event: KitchenEvent, payload: unknown, target: KitchenTarget): void;
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
   * Re-checks this process's staff sockets (kitchen and inventory rooms), all of them or one user's: a
   * socket whose joining token has expired or was ended, whose user lost the role, or whose branch scope
   * changed, leaves the room and gets `sessionExpired { room, reason }`. Returns how many room
   * memberships were dropped.
   */
  revalidate(userId?: string): Promise<number>;
  /**
   * A user's memberships, role, assignments, password or session version changed (the member cache's
   * `onForget`): re-checks their sockets here at once and tells the other processes to do the same.
   */
  userChanged(userId: string): void;
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
  /** Reads a tenant's activation and business type on joins and re-checks (default: a resolver on `db`). */
  tenants?: Pick<TenantResolver, 'byId'>;
  /** How often every staff socket is re-checked (default 60 s). */
  revalidateEveryMs?: number;
}

type StaffRoom = 'kitchen' | 'inventory';

/** Who joined a staff room, with what, and which socket.io rooms that put the socket in. */
interface Grant {
  kind: StaffRoom;
  userId: string;
  tenantId: string;
  /** Token expiry, Unix seconds, and the session version it carries. */
  exp: number;
  sv: number;
  rooms: string[];
}

const SLUG = /^[a-z0-9-]{1,64}$/;
const ORDER_NUMBER = /^[0-9A-Za-z-]{1,40}$/;
const ATTACHMENTS_TABLE = 'socket_io_attachments';
/** Server-side event (through the adapter) telling the other processes to re-check a user's sockets. */
const USER_CHANGED = 'ro:userChanged';

const fail = (error: JoinError, message: string): JoinFailure => ({ ok: false, error, message });
/** A refused join, and what a socket already in the room is told when the re-check finds the same. */
type Denied = JoinFailure & { reason: SessionExpiredReason };
const deny = (error: JoinError, message: string, reason: SessionExpiredReason = 'access_revoked'): Denied => ({ ok: false, error, message, reason });

function ackOf(args: unknown[]): (a: JoinAck) => void {
  const last = args[args.length - 1];
  return typeof last === 'function' ? (last as (a: JoinAck) => void) : () => {};
}

function tenantIdOf(payload: unknown): unknown {
  return typeof payload === 'string' ? payload : (payload as { tenantId?: unknown } | null)?.tenantId;
}

const grantsOf = (socket: Socket) => (socket.data.grants ??= new Map<string, Grant>()) as Map<string, Grant>;
const sameRooms = (a: string[], b: string[]) => a.length === b.length && a.every((r, i) => r === b[i]);

export function createRealtime(opts: RealtimeOptions): Realtime {
  const { database, db, jwt, log } = opts;
  const clock = opts.clock ?? systemClock;
  const maxTracked = opts.maxTrackedOrders ?? 10;
  const maxJoins = opts.maxJoinsPerMinute ?? 30;
  let orderLookup: OrderLookup | null = null;
  let pool: pg.Pool | null = null;
  const deadClients = new Set<pg.ClientBase>();

  const adapterOptions = {
    tableName: ATTACHMENTS_TABLE,
    heartbeatInterval: opts.heartbeatIntervalMs ?? 5000,
    heartbeatTimeout: opts.heartbeatTimeoutMs ?? 10_000,
    errorHandler: (err: Error) => log.warn({ err }, 'realtime adapter error'),
  };
  if (database.kind === 'postgres') {
    if (!database.url) throw new Error('realtime: the PostgreSQL database does not expose its connection string');
    // Its own pool: the adapter keeps one connection in LISTEN for good, and publishes on the other. The
    // adapter delivers to this process's own sockets only once the NOTIFY is done, so a single publishing
    // connection is what keeps one process's events in the order they were emitted (two could finish out of order).
    pool = new pg.Pool({ connectionString: database.url, max: 2, application_name: 'restaurant-ops-realtime' });
    pool.on('error', (err) => log.warn({ err }, 'realtime pool error'));
    // The adapter's LISTEN client is checked out for good: its errors (a server restart) must not crash the process.
    pool.on('connect', (client) => {
      client.on('error', (err) => log.warn({ err }, 'realtime connection error'));
      // A session the server ended while checked out (the adapter's LISTEN client after a restart or an
      // outage) is never given back to the pool: close() must not wait for it.
      client.on('end', () => deadClients.add(client));
    });
    pool.on('remove', (client) => deadClients.delete(client));
  }
  const io = new Server({
    serveClient: false,
    maxHttpBufferSize: 16 * 1024,
    ...(pool ? { adapter: createAdapter(pool, adapterOptions) } : {}),
  });
  const main = io.of('/');
  const inventory = io.of('/inventory');

  const tenants = opts.tenants ?? tenantResolver(db, database.tenant);

  /**
   * What the user, with a token of session version `sv`, may join now: the socket.io rooms of their
   * scope, or why not. Read from the database (not the member cache): joins and re-checks are rare.
   */
  async function access(userId: string, sv: number, tenantId: string, kind: StaffRoom): Promise<{ rooms: string[] } | Denied> {
    const [found, tenant] = await Promise.all([
      database.tenant(tenantId).run((tx) => loadMember(tx.db, userId, tenantId)),
      tenants.byId(tenantId),
    ]);
    // A deleted user (their last membership removed) lost access; an older session version means the token was ended.
    if (!found) return deny('unauthorized', 'Invalid or expired token');
    if (!tokenIsCurrent({ sv }, found.principal)) return deny('unauthorized', 'Invalid or expired token', 'token_expired');
    if (!tenant) return deny('not_found', 'Tenant not found');
    if (!tenant.isActive) return deny('forbidden', 'This tenant is deactivated');
    if (kind === 'kitchen' && tenant.businessType !== 'restaurant') {
      return deny('feature_unavailable', `The kitchen display is not available for the business type ${tenant.businessType}`);
    }
    let scope: BranchScope = { all: true };
    if (!found.principal.isSuperadmin) {
      const m = found.membership;
      if (!m) return deny('forbidden', 'You are not a member of this tenant');
      const roles: readonly string[] = ROOM_ROLES[kind];
      if (!roles.includes(m.role)) return deny('forbidden', `Joining needs one of the roles: ${roles.join(', ')}, superadmin`);
      scope = scopeOf(m.role, m.assignedBranchIds, m.assignedPdvIds);
    }
    return { rooms: kind === 'kitchen' ? kitchenRoomsFor(tenantId, scope) : [rooms.inventory(tenantId)] };
  }

  /**
   * Joins in progress per user. A change to the user while their join reads the database could be
   * missed by the re-check (the socket is not in the room yet): the join re-checks once it is in.
   */
  const joining = new Map<string, { count: number; changes: number }>();

  async function joinStaffRoom(socket: Socket, kind: StaffRoom, tenantId: unknown, token: unknown): Promise<JoinAck> {
    if (!isId(tenantId)) return fail('bad_request', 'tenantId must be a tenant id');
    if (typeof token !== 'string' || token === '') return fail('unauthorized', 'A bearer token is needed');
    const claims = await jwt.verify(token);
    if (!claims) return fail('unauthorized', 'Invalid or expired token');
    const mark = joining.get(claims.sub) ?? { count: 0, changes: 0 };
    joining.set(claims.sub, mark);
    mark.count++;
    const changesBefore = mark.changes;
    try {
      const granted = await access(claims.sub, claims.sv, tenantId, kind);
      if ('ok' in granted) return fail(granted.error, granted.message);
      const room = kind === 'kitchen' ? rooms.kitchen(tenantId) : rooms.inventory(tenantId);
      const grants = grantsOf(socket);
      const previous = grants.get(room);
      for (const r of previous?.rooms ?? []) if (!granted.rooms.includes(r)) await socket.leave(r);
      await socket.join(granted.rooms);
      grants.set(room, { kind, userId: claims.sub, tenantId, exp: claims.exp, sv: claims.sv, rooms: granted.rooms });
      return { ok: true, room };
    } finally {
      if (--mark.count === 0) joining.delete(claims.sub);
      if (mark.changes !== changesBefore) void revalidate(claims.sub).catch((err) => log.warn({ err }, 'realtime re-check failed'));
    }
  }

  async function revalidate(userId?: string): Promise<number> {
    const now = clock.now().getTime();
    const verdicts = new Map<string, Promise<{ rooms: string[] } | Denied>>();
    const verdictOf = (g: Grant) => {
      const key = `${g.kind}:${g.userId}:${g.tenantId}:${g.sv}`;
      let v = verdicts.get(key);
      if (!v) verdicts.set(key, (v = access(g.userId, g.sv, g.tenantId, g.kind)));
      return v;
    };
    let dropped = 0;
    for (const nsp of [main, inventory]) {
      for (const socket of [...nsp.sockets.values()]) {
        const grants = socket.data.grants as Map<string, Grant> | undefined;
        if (!grants) continue;
        for (const [room, g] of [...grants]) {
          if (userId !== undefined && g.userId !== userId) continue;
          let reason: SessionExpiredReason | null = null;
          if (g.exp * 1000 <= now) reason = 'token_expired';
          else {
            const verdict = await verdictOf(g);
            if ('ok' in verdict) reason = verdict.reason;
            else if (!sameRooms(verdict.rooms, g.rooms)) reason = 'scope_changed';
          }
          // Another re-check or a new join may have replaced the grant meanwhile.
          if (!reason || grants.get(room) !== g) continue;
          grants.delete(room);
          for (const r of g.rooms) await socket.leave(r);
          socket.emit('sessionExpired', { room, reason });
          dropped++;
        }
      }
    }
    return dropped;
  }

  /** Re-checks one user's sockets in this process (also those joining right now). */
  function recheckUser(userId: string) {
    const mark = joining.get(userId);
    if (mark) mark.changes++;
    revalidate(userId).catch((err) => log.warn({ err, userId }, 'realtime re-check failed'));
  }

  // Another process changed a user: their sockets here are re-checked too (PostgreSQL adapter only).
  main.on(USER_CHANGED, (userId: unknown) => {
    if (typeof userId === 'string') recheckUser(userId);
  });

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
      const token = (payload as { token?: unknown } | null)?.token ?? socket.handshake.auth?.token;
      return joinStaffRoom(socket, 'kitchen', tenantIdOf(payload), token);
    });

    on(socket, 'leaveKitchen', async (payload) => {
      const tenantId = tenantIdOf(payload);
      if (!isId(tenantId)) return fail('bad_request', 'tenantId must be a tenant id');
      const room = rooms.kitchen(tenantId);
      const grants = grantsOf(socket);
      for (const r of grants.get(room)?.rooms ?? [room]) await socket.leave(r);
      grants.delete(room);
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
    on(socket, 'joinInventory', async (payload) => joinStaffRoom(socket, 'inventory', tenantIdOf(payload), socket.handshake.auth?.token));
  });

  function emit(nsp: Namespace, room: string | string[], event: string, payload: unknown) {
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
    toKitchen: (tenantId, event, payload, target) => emit(main, kitchenRoomsOf(tenantId, target), event, payload),
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
          const p = pool;
          const busy = () => p.totalCount - deadClients.size > p.idleCount;
          for (let i = 0; i < 50 && busy(); i++) {
            await new Promise((r) => setTimeout(r, 100));
            for (const nsp of [main, inventory]) void nsp.adapter.close();
          }
          // pool.end() resolves once every client is back; a dead checked-out one never comes back, and its
          // socket is already closed, so nothing is left open by not waiting for it.
          if (deadClients.size === 0) await pool.end();
          else void pool.end().catch(() => {});
        }
      })();
      return closing;
    },
    serverCount: () => main.adapter.serverCount(),
    revalidate,
    userChanged(userId) {
      recheckUser(userId);
      // The in-memory adapter (PGlite, one process) has no other servers to tell.
      if (pool && !closing) {
        try {
          main.serverSideEmit(USER_CHANGED, userId);
        } catch (err) {
          log.warn({ err, userId }, 'realtime: telling the other processes failed');
        }
      }
    },
  };
}
