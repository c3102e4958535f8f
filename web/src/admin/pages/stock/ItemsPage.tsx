/**
 * Stock items: statistics, the low-stock alerts (live over the `/inventory` socket), expiring items, and
 * the catalog with quantities, minimum, unit and cost (filtered and paged here; the API answers it whole).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import { callPage, ShowingOf } from '../../ui/list-page.js';
import type { components, paths } from '../../api/schema.js';
import type { PageProps } from '../../types.js';
import { Field, fieldId } from '../../ui/Field.js';
import { formatDay, formatMoney } from '../../ui/format.js';
import { Link } from '../../ui/Link.js';
import { Pager } from '../../ui/Pager.js';
import { ItemForm } from './ItemForm.js';
import { errorText, formatQty, useInventoryLive } from './lib.js';
import { s } from './strings.js';
import './stock.css';

type Item = components['schemas']['InventoryItem'];
type Alert = components['schemas']['StockAlert'];
type Json<P extends keyof paths> = paths[P] extends { get: { responses: { 200: { content: { 'application/json': infer T } } } } } ? T : never;
type Stats = Json<'/t/{slug}/inventory/stats'>;
type Expiring = Json<'/t/{slug}/inventory/expiration-alerts'>;

const LIMIT = 20;
const ids = { q: fieldId('stock-q'), status: fieldId('stock-status') };

export default function ItemsPage({ slug, tenant, role }: PageProps) {
  const [items, setItems] = useState<Item[] | null>(null);
  const [total, setTotal] = useState(0);
  const [stats, setStats] = useState<Stats | null>(null);
  const [alerts, setAlerts] = useState<Alert[]>([]);
  const [expiring, setExpiring] = useState<Expiring | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [q, setQ] = useState('');
  const [status, setStatus] = useState('');
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const [live, setLive] = useState(false);
  const isAdmin = role === 'admin' || role === 'superadmin';
  const path = { params: { path: { slug } } };

  const loadItems = () =>
    callPage(api.GET('/t/{slug}/inventory', path))
      .then(({ rows: list, total }) => {
        setItems(list);
        setTotal(total);
        setError(null);
      })
      .catch((err) => setError(errorText(err, s.loadFailed)));
  const loadSide = () => {
    call(api.GET('/t/{slug}/inventory/stats', path))
      .then(setStats)
      .catch(() => {});
    call(api.GET('/t/{slug}/inventory/alerts', path))
      .then(setAlerts)
      .catch(() => {});
  };

  useEffect(() => {
    void loadItems();
    loadSide();
    // Admin and staff only (the API's rule); a branch manager simply does not see this section.
    if (role !== 'branch_manager')
      call(api.GET('/t/{slug}/inventory/expiration-alerts', path))
        .then(setExpiring)
        .catch(() => {});
  }, [slug]);

  // The inventory room admits admins and staff (ROOM_ROLES); a branch manager refreshes by reloading.
  useInventoryLive(tenant._id, role !== 'branch_manager', {
    onConnect: (joined) => {
      setLive(joined);
      loadSide();
    },
    onEvent: (event, payload) => {
      if (event === 'lowStockAlert') loadSide();
      if (event === 'stockUpdate') {
        const p = payload as { itemId?: string; physicalQuantity?: number; availableQuantity?: number; reservedQuantity?: number; pdvId?: string };
        if (p.itemId && !p.pdvId)
          setItems((list) =>
            list
              ? list.map((i) =>
                  i._id === p.itemId
                    ? {
                        ...i,
                        currentStock: p.physicalQuantity ?? i.currentStock,
                        availableQuantity: p.availableQuantity ?? i.availableQuantity,
                        reservedQuantity: p.reservedQuantity ?? i.reservedQuantity,
                      }
                    : i,
                )
              : list,
          );
      }
    },
  });

  async function markRead(id: string) {
    try {
      await call(api.PUT('/t/{slug}/inventory/alerts/{id}/read', { params: { path: { slug, id } } }));
      setAlerts((a) => a.filter((x) => x._id !== id));
    } catch (err) {
      setError(errorText(err, s.loadFailed));
    }
  }

  const needle = q.trim().toLowerCase();
  const shown = (items ?? [])
    .filter((i) => !status || i.status === status)
    .filter((i) => !needle || i.name.toLowerCase().includes(needle) || i.sku.toLowerCase().includes(needle) || i.ean === needle)
    .sort((a, b) => a.name.localeCompare(b.name, 'pt-BR'));
  const pageItems = shown.slice((page - 1) * LIMIT, page * LIMIT);
  const unit = (u: string) => s.units[u] ?? u;
  const expiringGroups: [string, Expiring['expiredItems']][] = expiring
    ? [
        [s.expired, expiring.expiredItems],
        [s.in7, expiring.expiringIn7],
        [s.in30, expiring.expiringIn30],
      ]
    : [];

  return (
    <section class="stock-page">
      <h1>{s.itemsTitle}</h1>
      <p>{s.itemsIntro}</p>
      {stats && (
        <ul class="stats" aria-label="Resumo">
          <li class="card">
            <strong>{stats.totalItems}</strong>
            <span>{s.statTotal}</span>
          </li>
          <li class="card">
            <strong>{formatMoney(stats.totalValue)}</strong>
            <span>{s.statValue}</span>
          </li>
          <li class="card">
            <strong>{stats.lowStock}</strong>
            <span>{s.statLow}</span>
          </li>
          <li class="card">
            <strong>{stats.expired}</strong>
            <span>{s.statExpired}</span>
          </li>
        </ul>
      )}

      <div class="stock-columns">
        <section aria-labelledby="alerts-title">
          <h2 id="alerts-title">
            {s.alertsTitle}
            {role !== 'branch_manager' && (
              <span class="live" role="status">
                {live ? s.live : s.offline}
              </span>
            )}
          </h2>
          {alerts.length === 0 ? (
            <p class="empty">{s.noAlerts}</p>
          ) : (
            <ul class="alerts-list" data-testid="stock-alerts">
              {alerts.map((a) => (
                <li key={a._id} class="card">
                  <span>
                    <span class="badge badge-low">{s.low}</span> {s.alertLine(a.itemName, formatQty(a.availableQuantity), formatQty(a.minQuantity), a.pdvName)}
                  </span>
                  <button type="button" class="btn small" onClick={() => void markRead(a._id)}>
                    {s.markRead}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </section>
        {expiring && (
          <section aria-labelledby="expiring-title">
            <h2 id="expiring-title">{s.expiringTitle}</h2>
            {expiringGroups.every(([, list]) => list.length === 0) ? (
              <p class="empty">{s.noExpiring}</p>
            ) : (
              expiringGroups
                .filter(([, list]) => list.length > 0)
                .map(([title, list]) => (
                  <div key={title} class="card">
                    <h3>{title}</h3>
                    <ul>
                      {list.map((i) => (
                        <li key={i._id}>
                          <Link href={`/admin/t/${slug}/stock/items/${i._id}`}>{i.name}</Link> — {formatDay(i.expirationDate)} · {formatQty(i.availableQuantity)} {unit(i.unit)}
                        </li>
                      ))}
                    </ul>
                  </div>
                ))
            )}
          </section>
        )}
      </div>

      <h2>Itens</h2>
      <div class="toolbar">
        <Field id={ids.q} label={s.search}>
          {(p) => (
            <input
              {...p}
              type="search"
              value={q}
              placeholder="Nome, SKU ou EAN"
              onInput={(e) => {
                setQ(e.currentTarget.value);
                setPage(1);
              }}
            />
          )}
        </Field>
        <Field id={ids.status} label={s.status}>
          {(p) => (
            <select
              {...p}
              value={status}
              onChange={(e) => {
                setStatus(e.currentTarget.value);
                setPage(1);
              }}
            >
              <option value="">{s.allStatuses}</option>
              {Object.entries(s.statuses).map(([k, label]) => (
                <option key={k} value={k}>
                  {label}
                </option>
              ))}
            </select>
          )}
        </Field>
        {isAdmin && !creating && (
          <button type="button" class="btn primary" onClick={() => setCreating(true)}>
            {s.newItem}
          </button>
        )}
      </div>
      {creating && (
        <ItemForm
          slug={slug}
          item={null}
          onCancel={() => setCreating(false)}
          onDone={(item) => {
            setCreating(false);
            setItems((list) => [...(list ?? []), item]);
            loadSide();
          }}
        />
      )}
      {error && (
        <p class="form-error" role="alert">
          {error}{' '}
          <button type="button" class="btn small" onClick={() => void loadItems()}>
            {s.retry}
          </button>
        </p>
      )}
      {items === null ? (
        !error && <p aria-busy="true">{s.loading}</p>
      ) : items.length === 0 ? (
        <p class="empty">{s.noItems}</p>
      ) : shown.length === 0 ? (
        <p class="empty">{s.noMatch}</p>
      ) : (
        <>
          <div class="table-scroll">
            <table class="data" data-testid="stock-items">
              <thead>
                <tr>
                  <th scope="col">{s.name}</th>
                  <th scope="col">{s.sku}</th>
                  <th scope="col" class="num">
                    {s.stock}
                  </th>
                  <th scope="col" class="num">
                    {s.available}
                  </th>
                  <th scope="col" class="num">
                    {s.min}
                  </th>
                  <th scope="col">{s.unit}</th>
                  <th scope="col" class="num">
                    {s.costCol}
                  </th>
                  <th scope="col">{s.status}</th>
                </tr>
              </thead>
              <tbody>
                {pageItems.map((i) => {
                  const low = i.minStock > 0 && i.availableQuantity <= i.minStock;
                  return (
                    <tr key={i._id} class={low ? 'low' : undefined}>
                      <td>
                        <Link href={`/admin/t/${slug}/stock/items/${i._id}`}>{i.name}</Link>
                        {low && <span class="badge badge-low"> {s.low}</span>}
                      </td>
                      <td>{i.sku}</td>
                      <td class="num">{formatQty(i.currentStock)}</td>
                      <td class="num">{formatQty(i.availableQuantity)}</td>
                      <td class="num">{formatQty(i.minStock)}</td>
                      <td>{unit(i.unit)}</td>
                      <td class="num">{formatMoney(i.cost)}</td>
                      <td>{s.statuses[i.status] ?? i.status}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <Pager page={page} total={shown.length} limit={LIMIT} onPage={setPage} />
          <ShowingOf shown={items?.length ?? 0} total={total} />
        </>
      )}
    </section>
  );
}
