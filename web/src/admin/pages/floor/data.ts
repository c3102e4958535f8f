/** What the floor pages share: the API's types, the PDVs the user may work, money input, the kitchen room. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../../../shared/api.js';
import { connectSocket, emitWithAck, type Socket } from '../../../shared/socket.js';
import { api, call } from '../../api/client.js';
import type { paths } from '../../api/schema.js';
import { session } from '../../session.js';

type Json<P extends keyof paths, M extends 'get' | 'post', S extends number> = paths[P][M] extends {
  responses: { [K in S]: { content: { 'application/json': infer T } } };
}
  ? T
  : never;

export type Table = Json<'/t/{slug}/tables', 'get', 200>[number];
export type Order = NonNullable<Json<'/t/{slug}/orders/open-tab/{tableId}', 'get', 200>>;
export type MenuItem = Json<'/t/{slug}/menu/items', 'get', 200>[number];
export type Category = Json<'/t/{slug}/menu/categories', 'get', 200>[number];
export type ModifierGroup = Json<'/t/{slug}/menu/modifier-groups', 'get', 200>[number];
export type PdvWithShift = Json<'/api/t/{slug}/admin/branches/{id}/pdvs', 'get', 200>[number];
export type ShiftReport = Json<'/api/t/{slug}/admin/branches/{id}/shifts/{shiftId}', 'get', 200>;
export type PayResult = Json<'/t/{slug}/orders/{id}/process-payment', 'post', 200>;

/** A PDV the user may pick, with its branch (the shift routes are per branch). */
export interface PdvChoice {
  _id: string;
  name: string;
  branch: string | null;
  branchName: string | null;
  serviceMode: string | null;
  gatewayATerminalSerial: string | null;
}

const PDV_KEY = (slug: string) => `floor.pdv.${slug}`;
export const savedPdv = (slug: string) => localStorage.getItem(PDV_KEY(slug)) ?? '';
export const savePdv = (slug: string, id: string) => localStorage.setItem(PDV_KEY(slug), id);

/** The PDVs the user works (`GET /t/:slug/pdvs`: admin all, branch manager their branches', staff their assigned), active ones. */
export async function loadPdvs(slug: string): Promise<{ pdvs: PdvChoice[] }> {
  const list = await call(api.GET('/t/{slug}/pdvs', { params: { path: { slug } } }));
  const pdvs = list
    .filter((p) => p.active)
    .map(({ _id, name, branch, branchName, serviceMode, gatewayATerminalSerial }) => ({ _id, name, branch, branchName, serviceMode, gatewayATerminalSerial }));
  return { pdvs };
}

export { centsToInput, parseMoney } from '../../ui/money-input.js';

export type Connection = 'connecting' | 'live' | 'reconnecting';

export interface KitchenHandlers {
  /** An order was created or changed (the kitchen room's `newOrder` / `orderUpdate`). */
  order?: (order: Order) => void;
  /** A payment of an order moved (`paymentUpdate`). */
  payment?: (p: { orderId: string; paymentStatus: string | null; amountDue: number }) => void;
  /** (Re)connected: refetch what may have been missed. */
  resync: () => void;
}

/** Joins the tenant's kitchen room (branch scope applies) and reconnects by itself; answers the connection state. */
export function useKitchenRoom(tenantId: string, handlers: KitchenHandlers): Connection {
  const [state, setState] = useState<Connection>('connecting');
  const h = useRef(handlers);
  h.current = handlers;
  useEffect(() => {
    let retry: ReturnType<typeof setTimeout> | undefined;
    async function join(socket: Socket, renewed = false): Promise<void> {
      try {
        const token = renewed ? (await session.renew()).accessToken : await session.accessToken();
        const ack = await emitWithAck<{ ok: boolean; error?: string }>(socket, 'joinKitchen', { tenantId, token });
        if (ack.ok) setState('live');
        else if (ack.error === 'unauthorized' && !renewed) await join(socket, true);
      } catch {
        /* the next reconnect joins again */
      }
    }
    const socket = connectSocket({
      onConnect: (s) => {
        void join(s);
        h.current.resync();
      },
      onDisconnect: () => setState('reconnecting'),
    });
    socket.on('connect_error', () => setState('reconnecting'));
    socket.on('disconnect', (reason) => {
      if (reason === 'io server disconnect') retry = setTimeout(() => socket.connect(), 1000 + Math.random() * 2000);
    });
    socket.on('newOrder', (p: { order?: Order }) => p.order && h.current.order?.(p.order));
    socket.on('orderUpdate', (p: { order?: Order }) => p.order && h.current.order?.(p.order));
    socket.on('paymentUpdate', (p: { orderId: string; paymentStatus: string | null; amountDue: number }) => h.current.payment?.(p));
    socket.on('sessionExpired', () => void join(socket, true));
    return () => {
      clearTimeout(retry);
      socket.disconnect();
    };
  }, [tenantId]);
  return state;
}

/** A message for a failed call: the API's own, else a generic one. */
export const describe = (err: unknown) => (err instanceof ApiError ? err.message : err instanceof Error ? err.message : String(err));
