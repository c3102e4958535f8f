/**
 * Today's dashboard of a branch: revenue by payment method and average ticket (the daily report), sales by
 * hour and open tabs (today's orders), stock alerts. Live: kitchen room order events refetch the numbers,
 * `/inventory` `lowStockAlert` adds an alert; both sockets reconnect by themselves and catch up on connect.
 */
import { io, type Socket } from 'socket.io-client';
import { useEffect, useRef, useState } from 'preact/hooks';
import { connectSocket, emitWithAck } from '../../../shared/socket.js';
import { api, call } from '../../api/client.js';
import { session } from '../../session.js';
import { BarChart } from '../../ui/BarChart.js';
import { formatMoney, formatTime, today } from '../../ui/format.js';
import type { PageProps } from '../../types.js';
import { errorText, Status, useIds } from './common.js';
import { strings as t } from './strings.js';
import type { Branch, DailyReport, Order, Pdv, StockAlert } from './types.js';
import './manager.css';

const PAGE = 500;
type JoinAck = { ok: true } | { ok: false; error: string };

/** Today's orders (and tabs still open from before), every page. */
async function todaysOrders(slug: string): Promise<Order[]> {
  const all: Order[] = [];
  for (let page = 1; page < 50; page++) {
    const batch = await call(api.GET('/t/{slug}/orders', { params: { path: { slug }, query: { page, limit: PAGE } } }));
    all.push(...batch);
    if (batch.length < PAGE) break;
  }
  return all;
}

export default function DashboardPage({ slug, tenant, role }: PageProps) {
  const ids = useIds('branch');
  const [branches, setBranches] = useState<Branch[] | null>(null);
  const [branchId, setBranchId] = useState('');
  const [pdvs, setPdvs] = useState<Pdv[]>([]);
  const [report, setReport] = useState<DailyReport | null>(null);
  const [orders, setOrders] = useState<Order[]>([]);
  const [alerts, setAlerts] = useState<StockAlert[] | null>(null);
  const [live, setLive] = useState(false);
  const [updated, setUpdated] = useState<string | null>(null);
  const [error, setError] = useState('');
  const refresh = useRef<() => void>(() => {});
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  useEffect(() => {
    call(api.GET('/api/t/{slug}/admin/branches', { params: { path: { slug }, query: { limit: 100 } } }))
      .then((page) => {
        const list = page.data.filter((b) => b.active);
        setBranches(list);
        setBranchId((list.find((b) => b.isHQ) ?? list[0])?._id ?? '');
      })
      .catch((err) => {
        setBranches([]);
        setError(t.loadFailed(errorText(err)));
      });
  }, [slug]);

  async function loadNumbers(id: string) {
    if (!id) return;
    try {
      const path = { slug, id };
      const [r, p, o] = await Promise.all([
        call(api.GET('/api/t/{slug}/admin/branches/{id}/daily-report', { params: { path, query: { date: today() } } })),
        call(api.GET('/api/t/{slug}/admin/branches/{id}/pdvs', { params: { path } })),
        todaysOrders(slug),
      ]);
      setReport(r);
      setPdvs(p);
      setOrders(o);
      setUpdated(new Date().toISOString());
      setError('');
    } catch (err) {
      setError(t.loadFailed(errorText(err)));
    }
  }
  async function loadAlerts() {
    try {
      setAlerts(await call(api.GET('/t/{slug}/inventory/alerts', { params: { path: { slug } } })));
    } catch {
      setAlerts((a) => a ?? []);
    }
  }
  refresh.current = () => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void loadNumbers(branchId), 400);
  };

  useEffect(() => {
    void loadNumbers(branchId);
  }, [branchId]);

  // Kitchen room: every order event refetches (debounced); on (re)connect, join again and catch up.
  useEffect(() => {
    void loadAlerts();
    const kitchen = connectSocket({
      onConnect: (s) => {
        void (async () => {
          try {
            const token = await session.accessToken();
            const ack = await emitWithAck<JoinAck>(s, 'joinKitchen', { tenantId: tenant._id, token });
            setLive(ack.ok);
          } catch {
            setLive(false);
          }
          refresh.current();
        })();
      },
      onDisconnect: () => setLive(false),
    });
    const onOrder = () => refresh.current();
    kitchen.on('newOrder', onOrder);
    kitchen.on('orderUpdate', onOrder);
    kitchen.on('paymentUpdate', onOrder);
    kitchen.on('sessionExpired', () => kitchen.emit('joinKitchen', { tenantId: tenant._id }));
    let retry: ReturnType<typeof setTimeout> | undefined;
    kitchen.on('disconnect', (reason) => {
      if (reason === 'io server disconnect') retry = setTimeout(() => kitchen.connect(), 1000 + Math.random() * 2000);
    });

    // Inventory namespace (admins; the API keeps branch managers out of the room): new low-stock alerts.
    let inventory: Socket | null = null;
    if (role === 'admin' || role === 'superadmin') {
      inventory = io('/inventory', {
        transports: ['websocket', 'polling'],
        auth: (cb) => {
          session
            .accessToken()
            .then((token) => cb({ token }))
            .catch(() => cb({}));
        },
      });
      inventory.on('connect', () => {
        inventory!.emit('joinInventory', { tenantId: tenant._id });
        void loadAlerts();
      });
      inventory.on('lowStockAlert', () => void loadAlerts());
    }
    return () => {
      clearTimeout(retry);
      clearTimeout(timer.current);
      kitchen.close();
      inventory?.close();
    };
  }, [slug, tenant._id]);

  async function markRead(a: StockAlert) {
    try {
      await call(api.PUT('/t/{slug}/inventory/alerts/{id}/read', { params: { path: { slug, id: a._id } } }));
      setAlerts((list) => (list ?? []).filter((x) => x._id !== a._id));
    } catch (err) {
      setError(t.failed(errorText(err)));
    }
  }

  if (!branches) return <p aria-busy="true">{t.loading}</p>;
  const branch = branches.find((b) => b._id === branchId);
  const pdvIds = new Set(pdvs.map((p) => p._id));
  const mine = orders.filter((o) => (o.pdv ? pdvIds.has(o.pdv) : Boolean(branch?.isHQ)));
  const openTabs = mine.filter((o) => o.isTab && o.status !== 'delivered' && o.status !== 'cancelled');
  const hourOf = new Intl.DateTimeFormat('en-GB', { timeZone: tenant.timezone, hour: '2-digit', hourCycle: 'h23' });
  const byHour = new Map<number, number>();
  const day = today();
  const dayOf = new Intl.DateTimeFormat('en-CA', { timeZone: tenant.timezone });
  for (const o of mine) {
    if (o.paymentStatus !== 'approved' || o.status === 'cancelled' || dayOf.format(new Date(o.updatedAt)) !== day) continue;
    const h = Number(hourOf.format(new Date(o.updatedAt)));
    byHour.set(h, (byHour.get(h) ?? 0) + o.total);
  }
  const hours = [...byHour.keys()];
  const hourBars = hours.length
    ? Array.from({ length: Math.max(...hours) - Math.min(...hours) + 1 }, (_, i) => {
        const h = Math.min(...hours) + i;
        return { label: `${h}h`, value: byHour.get(h) ?? 0 };
      })
    : [];
  const totals = report?.totals;
  const methodBars = totals ? (['cash', 'card', 'pix', 'other'] as const).map((k) => ({ label: t.methods[k], value: totals[k] })) : [];
  const average = totals && totals.orders ? Math.round(totals.revenue / totals.orders) : 0;

  return (
    <section class="mgr">
      <div class="toolbar">
        <h1 class="grow">{t.titles.dashboard}</h1>
        <span class={`live ${live ? 'on' : 'off'}`} role="status">
          {live ? t.live : t.reconnecting}
        </span>
      </div>
      {branches.length === 0 ? (
        <p class="empty">{t.noBranches}</p>
      ) : (
        <>
          {branches.length > 1 && (
            <div class="field inline">
              <label for={ids.branch}>{t.branch}</label>
              <select id={ids.branch} value={branchId} onChange={(e) => setBranchId(e.currentTarget.value)}>
                {branches.map((b) => (
                  <option key={b._id} value={b._id}>
                    {b.name}
                  </option>
                ))}
              </select>
            </div>
          )}
          <Status text={error} error />
          <div class="kpis" data-testid="kpis">
            <div class="card kpi">
              <span>{t.revenue}</span>
              <strong>{formatMoney(totals?.revenue ?? 0)}</strong>
            </div>
            <div class="card kpi">
              <span>{t.orders}</span>
              <strong>{totals?.orders ?? 0}</strong>
            </div>
            <div class="card kpi">
              <span>{t.averageTicket}</span>
              <strong>{formatMoney(average)}</strong>
            </div>
            <div class="card kpi">
              <span>{t.openTabs}</span>
              <strong data-testid="open-tabs">{openTabs.length}</strong>
            </div>
            <div class="card kpi">
              <span>{t.tips}</span>
              <strong>{formatMoney(totals?.tips ?? 0)}</strong>
            </div>
          </div>
          {updated && <p class="hint">{t.updatedAt(formatTime(updated))}</p>}
          {totals && totals.revenue === 0 && hourBars.length === 0 ? <p class="empty">{t.noSales}</p> : null}
          <div class="charts">
            <BarChart title={t.byHour} bars={hourBars} format={formatMoney} />
            <BarChart title={t.byMethod} bars={methodBars} format={formatMoney} />
          </div>
          <div class="charts">
            <div class="card">
              <h2>{t.openTabsList}</h2>
              {openTabs.length === 0 ? (
                <p class="empty">{t.noOpenTabs}</p>
              ) : (
                <ul class="plain">
                  {openTabs.slice(0, 20).map((o) => (
                    <li key={o._id}>
                      {t.tabLine(o.orderNumber, formatMoney(o.total))} · {formatTime(o.createdAt)}
                    </li>
                  ))}
                </ul>
              )}
            </div>
            <div class="card">
              <h2>{t.alerts}</h2>
              {alerts === null ? (
                <p aria-busy="true">{t.loading}</p>
              ) : alerts.length === 0 ? (
                <p class="empty">{t.noAlerts}</p>
              ) : (
                <ul class="plain alerts" data-testid="stock-alerts">
                  {alerts.map((a) => (
                    <li key={a._id}>
                      <span class="grow">
                        {t.alertLine(a.itemName, a.availableQuantity, a.minQuantity)}
                        {a.pdvName ? ` · ${a.pdvName}` : ''}
                      </span>
                      <button type="button" class="btn small" aria-label={`${t.markRead}: ${a.itemName}`} onClick={() => void markRead(a)}>
                        {t.markRead}
                      </button>
                    </li>
                  ))}
                </ul>
              )}
            </div>
          </div>
        </>
      )}
    </section>
  );
}
