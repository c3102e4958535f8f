import Fastify, { type FastifyInstance } from 'fastify';

/** What every provider simulator offers: its routes, in-process servers for `inject`, and a listener. */
export interface SimulatorServer {
  /** Fastify plugin with the provider protocol and the control API (`/__sim/...`); mount under any prefix. */
  routes: (app: FastifyInstance) => Promise<void>;
  /** A fresh Fastify instance serving `routes` at the root (for `inject` or `listen`). */
  buildServer(): FastifyInstance;
  /** Listens on 127.0.0.1 (port 0 = any free port) and returns the base URL. */
  listen(opts?: { port?: number; host?: string }): Promise<string>;
  close(): Promise<void>;
}

/** `buildServer` and `listen` over `routes`; the servers built are kept in `servers` for `close`. */
export function simulatorServers(routes: SimulatorServer['routes'], servers: FastifyInstance[]) {
  function buildServer(): FastifyInstance {
    const server = Fastify({ logger: false });
    server.register(routes);
    servers.push(server);
    return server;
  }
  return {
    buildServer,
    listen: (opts: { port?: number; host?: string } = {}) => buildServer().listen({ port: opts.port ?? 0, host: opts.host ?? '127.0.0.1' }),
  };
}
