/**
 * What every simulator shares: its servers (in-process for `inject`, or listening), the control API's
 * access rule (this machine only, never in production) and small reply helpers.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';

export interface SimulatorRoutesOptions {
  /**
   * Serve the control API (`/__sim...`: approve intents, list every payment, make accounts).
   * Default true; false leaves only the provider protocol (the service passes false when NODE_ENV=production).
   * When served, it answers loopback callers only (see `controlApi`).
   */
  control?: boolean;
}

/** What every provider simulator offers: its routes, in-process servers for `inject`, and a listener. */
export interface SimulatorServer {
  /** Fastify plugin with the provider protocol and the control API (`/__sim/...`); mount under any prefix. */
  routes: (app: FastifyInstance, opts: SimulatorRoutesOptions) => Promise<void>;
  /** A fresh Fastify instance serving `routes` at the root (for `inject` or `listen`). */
  buildServer(opts?: SimulatorRoutesOptions): FastifyInstance;
  /** Listens on 127.0.0.1 (port 0 = any free port) and returns the base URL. */
  listen(opts?: { port?: number; host?: string } & SimulatorRoutesOptions): Promise<string>;
  close(): Promise<void>;
}

/** `buildServer` and `listen` over `routes`, and `closeServers` for every server they built. */
export function simulatorServers(routes: SimulatorServer['routes']) {
  const servers: FastifyInstance[] = [];
  function buildServer(opts: SimulatorRoutesOptions = {}): FastifyInstance {
    const server = Fastify({ logger: false });
    server.register(routes, opts);
    servers.push(server);
    return server;
  }
  return {
    buildServer,
    listen: ({ port, host, ...opts }: { port?: number; host?: string } & SimulatorRoutesOptions = {}) =>
      buildServer(opts).listen({ port: port ?? 0, host: host ?? '127.0.0.1' }),
    closeServers: async () => {
      await Promise.all(servers.splice(0).map((s) => s.close()));
    },
  };
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** 127.0.0.0/8, ::1, and IPv4-mapped loopback (`::ffff:127.x.x.x`, in either notation). */
export function isLoopbackAddress(address: string | undefined | null): boolean {
  if (!address) return false;
  const a = address.replace(/%.*$/, ''); // an IPv6 zone id
  if (isIPv4(a)) return LOOPBACK.check(a, 'ipv4');
  if (isIPv6(a)) return LOOPBACK.check(a, 'ipv6'); // BlockList matches IPv4-mapped addresses against IPv4 rules
  return false;
}

/** Headers a reverse proxy adds: a proxied request is not a local one, even when the proxy runs on this host. */
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'] as const;

/**
 * A request made on this machine: the TCP peer is a loopback address and no proxy forwarded it.
 * The socket address is used rather than `req.ip`, so `X-Forwarded-For` can never make a caller look local.
 */
export function isLocalRequest(req: FastifyRequest): boolean {
  if (FORWARDING_HEADERS.some((h) => req.headers[h] !== undefined)) return false;
  return isLoopbackAddress(req.socket?.remoteAddress);
}

async function hideFromRemote(req: FastifyRequest, reply: FastifyReply) {
  // Answered exactly like a route that does not exist (the server's own 404 handler and body).
  if (!isLocalRequest(req)) return reply.callNotFound();
}

/**
 * Registers a simulator's control API in its own scope: not at all when `opts.control` is false,
 * otherwise answering only local callers (`isLocalRequest`); anyone else gets the 404 of an unknown route.
 */
export async function controlApi(
  app: FastifyInstance,
  opts: SimulatorRoutesOptions,
  register: (scope: FastifyInstance) => void | Promise<void>,
): Promise<void> {
  if (opts.control === false) return;
  await app.register(async (scope) => {
    scope.addHook('onRequest', hideFromRemote);
    await register(scope);
  });
}

/** Simulator routes stay out of the service's OpenAPI document. */
export const hide = { schema: { hide: true } } as const;

/** A JSON answer that no cache keeps. */
export const send = (reply: FastifyReply, status: number, body: unknown) => reply.code(status).header('cache-control', 'no-store').send(body);

/** The body as an object (the simulators validate each field themselves); anything else reads as `{}`. */
export const objectBody = (req: FastifyRequest): Record<string, unknown> =>
  req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};

/** A refusal of a simulated provider: each simulator answers it in its provider's error body (`errorReplier`). */
export class SimulatorError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Answers a `SimulatorError` with `body(err)` as its provider would; anything else is the server's 500. */
export function errorReplier(body: (err: SimulatorError) => unknown) {
  return (reply: FastifyReply, err: unknown) => {
    if (err instanceof SimulatorError) return send(reply, err.status, body(err));
    throw err;
  };
}
