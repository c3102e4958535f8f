/**
 * Servers for the clients' failure tests, on real sockets (127.0.0.1): one that accepts connections and
 * never answers (the deadline), and an address where nothing listens (unreachable).
 */
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A server that never answers; `close` drops its connections and stops it. */
export async function silentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer(() => {
    /* never answers */
  });
  server.on('connection', (s) => sockets.add(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

/** The URL of a port that was free a moment ago: nothing listens there. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return `http://127.0.0.1:${port}`;
}
