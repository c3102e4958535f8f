/**
 * socket.io connection to the same origin (default path `/socket.io`). The client reconnects by itself;
 * pages re-join their rooms in an `onConnect` callback, which runs on the first connect and on every reconnect.
 */
import { io, type Socket } from 'socket.io-client';

export type { Socket };

export interface ConnectOptions {
  /** Staff pages pass their access token (read by the server in the handshake `auth.token`). */
  token?: string | null;
  /** Runs on every (re)connect: re-emit the room joins there and refetch what may have been missed. */
  onConnect?: (socket: Socket) => void;
  /** Runs when the connection drops (the client keeps retrying). */
  onDisconnect?: (reason: string) => void;
}

export function connectSocket(opts: ConnectOptions = {}): Socket {
  const socket = io({
    transports: ['websocket', 'polling'],
    auth: opts.token ? { token: opts.token } : undefined,
  });
  if (opts.onConnect) socket.on('connect', () => opts.onConnect?.(socket));
  if (opts.onDisconnect) socket.on('disconnect', (reason) => opts.onDisconnect?.(reason));
  return socket;
}

/** Emits `event` and resolves with the server's acknowledgement (rejects after `timeoutMs`). */
export function emitWithAck<T>(socket: Socket, event: string, payload: unknown, timeoutMs = 5000): Promise<T> {
  return socket.timeout(timeoutMs).emitWithAck(event, payload) as Promise<T>;
}
