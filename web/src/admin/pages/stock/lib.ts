/**
 * Stock area helpers: multipart upload with progress (XMLHttpRequest), authorised file downloads, the
 * `/inventory` socket (stock alerts live), and form number parsing. Used by the stock pages only.
 */
import { useEffect, useRef } from 'preact/hooks';
import { io, type Socket } from 'socket.io-client';
import { ApiError, type FieldError } from '../../../shared/api.js';
import { session } from '../../session.js';
import { centsToInput, parseMoney } from '../../ui/money-input.js';
import { download as saveFile } from '../../ui/download.js';

/** Posts `form` to `url` with the session token, reporting upload progress (0..1); non-2xx throws ApiError. */
export async function upload<T>(url: string, form: FormData, onProgress: (fraction: number) => void): Promise<{ status: number; body: T }> {
  const token = await session.accessToken();
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.setRequestHeader('authorization', `Bearer ${token}`);
    xhr.responseType = 'json';
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      const body = xhr.response as (T & { code?: string; error?: string; message?: string; details?: FieldError[] }) | null;
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress(1);
        resolve({ status: xhr.status, body: body as T });
      } else reject(new ApiError(xhr.status, body?.code ?? body?.error ?? 'http_error', body?.message ?? xhr.statusText, body?.details ?? []));
    };
    xhr.onerror = () => reject(new ApiError(0, 'network', 'network error'));
    xhr.send(form);
  });
}

/** Downloads `url` (a PDF...) with the session token and saves it as `filename`. */
export async function download(url: string, filename: string): Promise<void> {
  await saveFile(url, filename, { serverName: false });
}

/**
 * Joins the tenant's `/inventory` room and calls `onEvent` for `lowStockAlert` and `stockUpdate`, and
 * `onConnect` on every (re)connect (refetch what may have been missed). Reconnects by itself.
 */
export function useInventoryLive(
  tenantId: string,
  enabled: boolean,
  handlers: { onEvent: (event: string, payload: unknown) => void; onConnect?: (joined: boolean) => void },
) {
  const ref = useRef(handlers);
  ref.current = handlers;
  useEffect(() => {
    if (!enabled) return;
    let retry: ReturnType<typeof setTimeout> | undefined;
    const socket: Socket = io('/inventory', {
      transports: ['websocket', 'polling'],
      auth: (cb) => {
        session
          .accessToken()
          .then((token) => cb({ token }))
          .catch(() => cb({}));
      },
    });
    const join = () => {
      socket
        .timeout(5000)
        .emitWithAck('joinInventory', { tenantId })
        .then((ack: { error?: string } | undefined) => ref.current.onConnect?.(!ack?.error))
        .catch(() => ref.current.onConnect?.(false));
    };
    socket.on('connect', join);
    socket.on('sessionExpired', () => {
      socket.disconnect();
      socket.connect();
    });
    socket.on('connect_error', () => {
      if (!socket.active) retry = setTimeout(() => socket.connect(), 2000 + Math.random() * 2000);
    });
    socket.on('disconnect', (reason) => {
      if (reason === 'io server disconnect') retry = setTimeout(() => socket.connect(), 1000 + Math.random() * 2000);
    });
    socket.on('lowStockAlert', (p: unknown) => ref.current.onEvent('lowStockAlert', p));
    socket.on('stockUpdate', (p: unknown) => ref.current.onEvent('stockUpdate', p));
    return () => {
      clearTimeout(retry);
      socket.disconnect();
    };
  }, [tenantId, enabled]);
}

/** A decimal typed in pt-BR (`1,5` or `1.5`) -> number, or null when not a number. */
export function parseDecimal(text: string): number | null {
  const s = text.trim().replace(/\s/g, '').replace(',', '.');
  if (!/^-?\d+(\.\d+)?$/.test(s)) return null;
  return Number(s);
}

export { parseMoney as parseCents };

/** Cents -> the text a money input starts with (`12,50`); empty for none. */
export const centsText = (cents: number | null | undefined) => (cents == null ? '' : centsToInput(cents));

/** At most 3 decimals, as the API requires. */
export const threeDecimals = (n: number) => Math.abs(Math.round(n * 1000) - n * 1000) < 1e-6;

export const formatQty = (n: number) => new Intl.NumberFormat('pt-BR', { maximumFractionDigits: 3 }).format(n);

/** The error text of a failed call (ApiError message, or a generic one). */
export const errorText = (err: unknown, fallback: string) => (err instanceof ApiError && err.message ? err.message : fallback);
