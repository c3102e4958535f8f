/** The floor: the tables as tiles with their status, open tab, total and time open; live over the kitchen room. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import type { PageProps } from '../../types.js';
import { formatMoney } from '../../ui/format.js';
import { Link } from '../../ui/Link.js';
import { describe, loadPdvs, savedPdv, savePdv, useKitchenRoom, type Order, type PdvChoice, type Table } from './data.js';
import { strings as t } from './strings.js';
import './floor.css';

const minutesSince = (iso: string, now: number) => Math.max(0, Math.floor((now - Date.parse(iso)) / 60_000));

export default function FloorPage({ slug, tenant }: PageProps) {
  const [tables, setTables] = useState<Table[] | null>(null);
  const [tabs, setTabs] = useState<Map<string, Order>>(new Map());
  const [pdvs, setPdvs] = useState<PdvChoice[]>([]);
  const [pdv, setPdv] = useState(() => savedPdv(slug));
  const [error, setError] = useState<string | null>(null);
  const [now, setNow] = useState(Date.now());
  const loading = useRef<Promise<void> | null>(null);

  async function refetch() {
    if (loading.current) return loading.current;
    loading.current = (async () => {
      try {
        const list = await call(api.GET('/t/{slug}/tables', { params: { path: { slug } } }));
        const open = await Promise.all(
          list
            .filter((tb) => tb.status === 'occupied')
            .map((tb) => call(api.GET('/t/{slug}/orders/open-tab/{tableId}', { params: { path: { slug, tableId: tb._id } } })).catch(() => null)),
        );
        const map = new Map<string, Order>();
        for (const o of open) if (o?.table) map.set(o.table, o);
        setTables(list);
        setTabs(map);
        setError(null);
      } catch (err) {
        setError(describe(err));
      } finally {
        loading.current = null;
      }
    })();
    return loading.current;
  }

  const connection = useKitchenRoom(tenant._id, {
    resync: () => void refetch(),
    order: (o) => {
      // A tab opened, changed, moved or closed: the tables' status changes with it.
      if (o.type === 'dine_in') void refetch();
    },
    payment: () => void refetch(),
  });

  useEffect(() => {
    void refetch();
    loadPdvs(slug)
      .then(({ pdvs: list }) => {
        setPdvs(list);
        if (!list.some((p) => p._id === savedPdv(slug))) {
          const first = list.find((p) => p.serviceMode === 'mesa') ?? list[0];
          if (first) {
            setPdv(first._id);
            savePdv(slug, first._id);
          }
        }
      })
      .catch(() => setPdvs([]));
    const tick = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(tick);
  }, [slug]);

  // Tables are the tenant's, not a PDV's: all show; a tab of another PDV says which.
  const shown = tables ?? [];
  const pdvName = (id: string | null) => (id && id !== pdv ? pdvs.find((p) => p._id === id)?.name : undefined);

  return (
    <section class="floor">
      <div class="toolbar floor-toolbar">
        <h1>{t.floorTitle}</h1>
        <div class="field floor-pdv">
          <label for="floor-pdv">{t.pdv}</label>
          <select
            id="floor-pdv"
            value={pdv}
            onChange={(e) => {
              setPdv(e.currentTarget.value);
              savePdv(slug, e.currentTarget.value);
            }}
          >
            <option value="">{pdvs.length ? t.allPdvs : t.noPdv}</option>
            {pdvs.map((p) => (
              <option key={p._id} value={p._id}>
                {p.branchName ? `${p.name} · ${p.branchName}` : p.name}
              </option>
            ))}
          </select>
        </div>
        <span class={`live-dot ${connection}`} role="status">
          {connection === 'live' ? t.live : t.reconnecting}
        </span>
        <button type="button" class="btn" onClick={() => void refetch()}>
          {t.refresh}
        </button>
      </div>
      {error && (
        <p role="alert" class="form-error">
          {error}
        </p>
      )}
      {!tables ? (
        <p aria-busy="true">{t.loading}</p>
      ) : tables.length === 0 ? (
        <p class="empty">{t.noTables}</p>
      ) : (
        <>
          <p class="hint">{t.legend}</p>
          <ul class="table-grid" data-testid="floor-tables">
            {shown.map((tb) => {
              const tab = tabs.get(tb._id);
              return (
                <li key={tb._id}>
                  <Link href={`/admin/t/${slug}/floor/tables/${tb._id}`} class={`table-tile status-${tb.status}`}>
                    <span class="tile-head">
                      <strong>{t.tableN(tb.number)}</strong>
                      <span class="badge">{t.status[tb.status] ?? tb.status}</span>
                    </span>
                    <span class="tile-meta">
                      {t.seats(tb.capacity)}
                      {tb.location ? ` · ${tb.location}` : ''}
                    </span>
                    {tab && (
                      <span class="tile-tab">
                        <span>
                          #{tab.orderNumber.split('-').pop()}
                          {pdvName(tab.pdv) ? ` · ${pdvName(tab.pdv)}` : ''}
                        </span>
                        <span>{t.openFor(minutesSince(tab.createdAt, now))}</span>
                        <span>
                          {t.tabTotal} <strong>{formatMoney(tab.total)}</strong>
                        </span>
                        {tab.amountPaid > 0 && (
                          <span>
                            {t.due} {formatMoney(tab.amountDue)}
                          </span>
                        )}
                      </span>
                    )}
                  </Link>
                </li>
              );
            })}
          </ul>
        </>
      )}
    </section>
  );
}
