/**
 * The live board: today's open orders by status for one station, kept current over socket.io
 * (`joinKitchen`, `newOrder`, `orderUpdate`), refetched on every (re)connect to catch up after a drop.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../shared/api.js';
import { connectSocket, emitWithAck, type Socket } from '../shared/socket.js';
import { BOARD_STATUSES, column, initialStation, isBoardStatus, linesFor, STATIONS, upsert, type KitchenOrder, type Station } from './board.js';
import { OrderCard } from './OrderCard.js';
import type { Session } from '../shared/session.js';
import { beep, soundReady, unlock } from './sound.js';
import { strings as t } from './strings.js';

type JoinAck = { ok: true; room: string } | { ok: false; error: string; message: string };
interface Toast {
  id: number;
  text: string;
}

const PAGE_SIZE = 500;
const TICK_MS = 15_000;
const stationKey = (slug: string) => `kitchen.station.${slug}`;

export function describeError(err: unknown): string {
  if (!(err instanceof ApiError)) return t.networkError;
  if (err.status === 0) return t.networkError;
  if (err.status === 409) return t.conflictError;
  if (err.status === 403) return t.forbiddenError;
  if (err.status === 404) return t.notFoundError;
  return t.serverError(err.status);
}

interface BoardProps {
  slug: string;
  tenantId: string;
  tenantName: string;
  session: Session;
  onLogout: () => void;
}

export function Board({ slug, tenantId, tenantName, session, onLogout }: BoardProps) {
  const [orders, setOrders] = useState(() => new Map<string, KitchenOrder>());
  /** Table id -> number: orders name their table by id, the cooks by the number on it. */
  const [tables, setTables] = useState(() => new Map<string, number>());
  const [station, setStation] = useState<Station>(() => initialStation(location.search, localStorage.getItem(stationKey(slug))));
  const [connection, setConnection] = useState<'connected' | 'reconnecting'>('reconnecting');
  const [now, setNow] = useState(() => Date.now());
  const [busy, setBusy] = useState<ReadonlySet<string>>(new Set());
  const [toasts, setToasts] = useState<Toast[]>([]);
  const [announcement, setAnnouncement] = useState('');
  const [sound, setSound] = useState(soundReady);
  const [unavailable, setUnavailable] = useState(false);
  const stationRef = useRef(station);
  stationRef.current = station;
  const soundRef = useRef(sound);
  soundRef.current = sound;
  const focusAfter = useRef<string | null>(null);
  const toastId = useRef(0);
  const base = `/t/${encodeURIComponent(slug)}/orders`;

  function toast(text: string) {
    const id = ++toastId.current;
    setToasts((list) => [...list.slice(-3), { id, text }]);
    setTimeout(() => setToasts((list) => list.filter((x) => x.id !== id)), 8000);
  }

  function receive(order: KitchenOrder, isNew: boolean) {
    setOrders((map) => upsert(map, order));
    if (isNew && order.status === 'pending' && linesFor(order, stationRef.current).length > 0) {
      setAnnouncement(t.newOrder(order.orderNumber));
      if (soundRef.current) beep();
    }
  }

  /**
   * Every open order, page by page per board status (the list without `from` is today's orders plus those
   * still open from before: a ticket from before midnight is still cooking); newer event data wins over
   * the snapshot.
   */
  async function refetch() {
    const started = Date.now();
    session
      .request<{ _id: string; number: number }[]>(`/t/${encodeURIComponent(slug)}/tables`)
      .then((list) => setTables(new Map(list.map((x) => [x._id, x.number]))))
      .catch(() => {}); // without the numbers a card says "Mesa" alone; the board itself still loads
    try {
      const lists = await Promise.all(
        BOARD_STATUSES.map(async (status) => {
          const all: KitchenOrder[] = [];
          for (let page = 1; ; page++) {
            const batch = await session.request<KitchenOrder[]>(`${base}?status=${status}&limit=${PAGE_SIZE}&page=${page}`);
            all.push(...batch);
            if (batch.length < PAGE_SIZE) return all;
          }
        }),
      );
      setOrders((current) => {
        let next = new Map<string, KitchenOrder>();
        for (const order of lists.flat()) next.set(order._id, order);
        for (const order of current.values()) {
          // Kept: what an event brought while the lists were loading, when newer than their snapshot.
          if (!next.has(order._id) && Date.parse(order.updatedAt) >= started) next.set(order._id, order);
          else if (next.has(order._id)) next = upsert(next, order);
        }
        return next;
      });
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 401)) toast(`${t.listFailed} (${describeError(err)})`);
    }
  }

  async function join(socket: Socket, renewed = false): Promise<void> {
    try {
      const token = renewed ? (await session.renew()).accessToken : await session.accessToken();
      const ack = await emitWithAck<JoinAck>(socket, 'joinKitchen', { tenantId, token });
      if (ack.ok) return setUnavailable(false);
      if (ack.error === 'unauthorized' && !renewed) return join(socket, true);
      if (ack.error === 'feature_unavailable') return setUnavailable(true);
      toast(t.liveFailed(ack.error === 'forbidden' ? t.wrongRole : ack.error === 'not_found' ? t.notMember : t.liveRetry));
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return; // the session ended: the login form shows
      if (socket.connected) toast(t.liveFailed(describeError(err)));
    }
  }

  useEffect(() => {
    const socket = connectSocket({
      onConnect: (s) => {
        setConnection('connected');
        void join(s);
        void refetch();
      },
      onDisconnect: () => setConnection('reconnecting'),
    });
    socket.on('connect_error', () => setConnection('reconnecting'));
    // socket.io reconnects by itself after a network drop, but not when the server closed the socket
    // (a restart or deploy shuts its sockets down): reconnect then too, after a short random wait.
    let retry: ReturnType<typeof setTimeout> | undefined;
    socket.on('disconnect', (reason) => {
      if (reason === 'io server disconnect') retry = setTimeout(() => socket.connect(), 1000 + Math.random() * 2000);
    });
    socket.on('newOrder', (payload: { order: KitchenOrder }) => receive(payload.order, true));
    socket.on('orderUpdate', (payload: { order?: KitchenOrder }) => payload.order && receive(payload.order, false));
    socket.on('sessionExpired', () => void join(socket, true));
    const tick = setInterval(() => setNow(Date.now()), TICK_MS);
    return () => {
      clearInterval(tick);
      clearTimeout(retry);
      socket.disconnect();
    };
  }, [tenantId]);

  // After a bump or recall, keep keyboard focus on the moved card (now in another column).
  useEffect(() => {
    const id = focusAfter.current;
    if (!id || busy.has(id)) return;
    focusAfter.current = null;
    const card = document.querySelector<HTMLElement>(`[data-order-id="${id}"]`);
    (card?.querySelector<HTMLElement>('[data-testid="bump"]') ?? document.getElementById('station'))?.focus();
  }, [orders, busy]);

  function chooseStation(value: string) {
    const next = initialStation(`?station=${value}`, null);
    setStation(next);
    localStorage.setItem(stationKey(slug), next);
    const url = new URL(location.href);
    url.searchParams.set('station', next);
    history.replaceState(null, '', url);
  }

  async function move(order: KitchenOrder, to: string) {
    setBusy((s) => new Set(s).add(order._id));
    const hadFocus = !!document.activeElement?.closest('[data-order-id]');
    try {
      const updated = await session.request<KitchenOrder>(`${base}/${order._id}/status`, { method: 'PUT', body: { status: to } });
      if (hadFocus) focusAfter.current = order._id;
      setOrders((map) => upsert(map, updated));
      setAnnouncement(t.moved(updated.orderNumber, isBoardStatus(updated.status) ? t.columns[updated.status] : t.delivered));
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return;
      toast(t.statusFailed(order.orderNumber, describeError(err)));
      if (err instanceof ApiError && (err.status === 409 || err.status === 404)) void refetch();
    } finally {
      setBusy((s) => {
        const next = new Set(s);
        next.delete(order._id);
        return next;
      });
    }
  }

  function toggleSound() {
    if (sound) return setSound(false);
    const ok = unlock();
    setSound(ok);
    if (ok) beep();
  }

  return (
    <>
      <header class="kds-header">
        <h1 class="kds-title">{t.pageTitle(tenantName)}</h1>
        <div class="kds-controls">
          <label class="station-label" for="station">
            {t.station}
          </label>
          <select id="station" value={station} onChange={(e) => chooseStation(e.currentTarget.value)}>
            {STATIONS.map((s) => (
              <option key={s} value={s}>
                {t.stations[s]}
              </option>
            ))}
          </select>
          <button type="button" class="btn" aria-pressed={sound} onClick={toggleSound}>
            <span aria-hidden="true">{sound ? '♪ ' : ''}</span>
            {sound ? t.soundOn : t.soundOff}
          </button>
          <span class="user" title={t.loggedInAs(session.userName)}>
            {session.userName}
          </span>
          <button type="button" class="btn" onClick={onLogout}>
            {t.logout}
          </button>
        </div>
      </header>
      <div class={`connection connection-${connection}`} data-testid="connection" data-state={connection} role="status">
        <span aria-hidden="true">{connection === 'connected' ? '● ' : '⟳ '}</span>
        {connection === 'connected' ? t.connected : t.reconnecting}
      </div>
      {unavailable && (
        <p class="panel" role="alert">
          {t.kitchenUnavailable}
        </p>
      )}
      <main class="board" id="main">
        {BOARD_STATUSES.map((status) => {
          const list = column(orders.values(), status, station);
          return (
            <section key={status} class="column" data-testid="column" data-status={status} aria-labelledby={`col-${status}`}>
              <h2 id={`col-${status}`} class="column-title">
                {t.columns[status]} <span class="count">{t.columnCount(list.length)}</span>
              </h2>
              {list.length === 0 ? (
                <p class="empty">{t.emptyColumn}</p>
              ) : (
                <ul class="cards">
                  {list.map((order) => (
                    <OrderCard
                      key={order._id}
                      order={order}
                      tableNumber={order.table ? tables.get(order.table) : undefined}
                      status={status}
                      station={station}
                      now={now}
                      busy={busy.has(order._id)}
                      onMove={move}
                    />
                  ))}
                </ul>
              )}
            </section>
          );
        })}
      </main>
      <div class="sr-only" aria-live="polite" aria-atomic="true">
        {announcement}
      </div>
      <div class="toasts" role="alert" aria-live="assertive">
        {toasts.map((x) => (
          <div key={x.id} class="toast">
            <span>{x.text}</span>
            <button type="button" class="toast-close" aria-label={t.dismiss} onClick={() => setToasts((l) => l.filter((y) => y.id !== x.id))}>
              ×
            </button>
          </div>
        ))}
      </div>
    </>
  );
}
