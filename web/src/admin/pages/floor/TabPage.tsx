/**
 * A table's tab: open it with the first round, add rounds with modifiers, the bill, move or merge tables,
 * split the bill, take payments (live terminal status), close the tab. `floor/tables/:tableId`.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../../../shared/api.js';
import { api, call } from '../../api/client.js';
import { navigate } from '../../router.js';
import type { PageProps } from '../../types.js';
import { formatMoney, formatTime, today } from '../../ui/format.js';
import { Link } from '../../ui/Link.js';
import { BillPanel } from './BillPanel.js';
import { describe, loadPdvs, savedPdv, savePdv, useKitchenRoom, type Category, type MenuItem, type ModifierGroup, type Order, type PdvChoice, type Table } from './data.js';
import { PaymentBox, type LiveStatus } from './PaymentBox.js';
import { RoundBuilder, RoundList, type RoundLine } from './RoundBuilder.js';
import { strings as t } from './strings.js';
import './floor.css';

interface Menu {
  items: MenuItem[];
  categories: Category[];
  groups: ModifierGroup[];
}

export default function TabPage({ slug, tenant, params }: PageProps) {
  const tableId = params.tableId;
  const [tables, setTables] = useState<Table[]>([]);
  const [tab, setTab] = useState<Order | null | undefined>(undefined);
  const [parts, setParts] = useState<Order[]>([]);
  const [menu, setMenu] = useState<Menu | null>(null);
  const [pdvs, setPdvs] = useState<PdvChoice[]>([]);
  const [pdv, setPdv] = useState(() => savedPdv(slug));
  const [covers, setCovers] = useState('');
  const [round, setRound] = useState<RoundLine[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string | undefined>>({});
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [live, setLive] = useState<LiveStatus | null>(null);
  const [moveTo, setMoveTo] = useState('');
  const [mergeFrom, setMergeFrom] = useState('');
  const [splitN, setSplitN] = useState('2');

  const table = tables.find((x) => x._id === tableId);

  /** The tab of a split bill: the parent's view with its parts, oldest first (the open tab may be a part). */
  async function withParts(open: Order): Promise<Order> {
    if (!open.isSplit && !open.isSplitBill) {
      setParts([]);
      return open;
    }
    const day = open.createdAt.slice(0, 10);
    const list = await call(api.GET('/t/{slug}/orders', { params: { path: { slug }, query: { from: day < today() ? day : today(), to: today(), limit: 500 } } }));
    const parent = open.isSplit ? open : (list.find((o) => o.orderNumber === open.splitBillReference) ?? open);
    setParts(list.filter((o) => o.isSplitBill && o.splitBillReference === parent.orderNumber).sort((a, b) => a.orderNumber.localeCompare(b.orderNumber)));
    return parent;
  }

  async function refetch() {
    try {
      const [list, open] = await Promise.all([
        call(api.GET('/t/{slug}/tables', { params: { path: { slug } } })),
        call(api.GET('/t/{slug}/orders/open-tab/{tableId}', { params: { path: { slug, tableId } } })),
      ]);
      setTables(list);
      const shown = open ? await withParts(open) : null;
      // No open tab: a tab just closed here stays on screen; one closed or moved elsewhere goes.
      setTab((current) => shown ?? (current && (current.status === 'delivered' || current.isSplit) ? current : null));
      setError(null);
    } catch (err) {
      setError(describe(err));
    }
  }

  useEffect(() => {
    void refetch();
    Promise.all([
      call(api.GET('/t/{slug}/menu/items', { params: { path: { slug } } })),
      call(api.GET('/t/{slug}/menu/categories', { params: { path: { slug } } })),
      call(api.GET('/t/{slug}/menu/modifier-groups', { params: { path: { slug } } })),
    ])
      .then(([items, categories, groups]) => setMenu({ items, categories, groups }))
      .catch((err) => setError(describe(err)));
    loadPdvs(slug)
      .then(({ pdvs: list }) => setPdvs(list))
      .catch(() => setPdvs([]));
  }, [slug, tableId]);

  const connection = useKitchenRoom(tenant._id, {
    resync: () => void refetch(),
    order: (o) => {
      if (tab && o._id === tab._id) setTab(o);
      else if (parts.some((p) => p._id === o._id)) setParts((ps) => ps.map((p) => (p._id === o._id ? o : p)));
      else if (o.table === tableId) void refetch();
    },
    payment: (p) => {
      setLive({ orderId: p.orderId, paymentStatus: p.paymentStatus });
      if (tab?._id === p.orderId || parts.some((x) => x._id === p.orderId)) void refetch();
    },
  });

  function roundItems() {
    return round.map((l) => ({
      menuItem: l.item._id,
      quantity: l.quantity,
      ...(l.notes ? { notes: l.notes } : {}),
      ...(l.modifiers.length ? { modifiers: l.modifiers } : {}),
    }));
  }

  async function send() {
    const found: Record<string, string | undefined> = {};
    const c = covers.trim() ? Number(covers) : undefined;
    if (c !== undefined && !(Number.isInteger(c) && c >= 0 && c <= 500)) found.covers = t.requiredField;
    if (!round.length) found.items = t.roundEmpty;
    setFieldErrors(found);
    if (Object.values(found).some(Boolean)) return;
    setBusy(true);
    setNotice(null);
    try {
      let order: Order;
      if (tab && !tab.isSplit) {
        order = await call(api.PATCH('/t/{slug}/orders/{id}/add-items', { params: { path: { slug, id: tab._id } }, body: { items: roundItems() } }));
      } else {
        const res = await call(
          api.POST('/t/{slug}/orders', {
            params: { path: { slug } },
            body: { orderType: 'dine_in', table: tableId, items: roundItems(), ...(pdv ? { pdv } : {}), ...(c !== undefined ? { covers: c } : {}) },
          }),
        );
        order = res as Order;
      }
      setTab(order);
      setRound([]);
      setError(null);
      void refetch();
    } catch (err) {
      if (err instanceof ApiError) setFieldErrors({ items: err.fieldMessage('items') ?? (err.fields.find((f) => f.field.includes('items'))?.message), covers: err.fieldMessage('covers'), pdv: err.fieldMessage('pdv') });
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  }

  async function act(run: () => Promise<void>) {
    setBusy(true);
    setNotice(null);
    try {
      await run();
      setError(null);
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  }

  const move = () =>
    act(async () => {
      if (!tab || !moveTo) return;
      await call(api.POST('/t/{slug}/orders/{id}/move-table', { params: { path: { slug, id: tab._id } }, body: { tableId: moveTo } }));
      navigate(`/admin/t/${slug}/floor/tables/${moveTo}`);
    });

  const merge = () =>
    act(async () => {
      if (!tab || !mergeFrom) return;
      const other = await call(api.GET('/t/{slug}/orders/open-tab/{tableId}', { params: { path: { slug, tableId: mergeFrom } } }));
      if (!other) throw new Error(t.noOtherTabs);
      const r = await call(api.POST('/t/{slug}/orders/{id}/merge', { params: { path: { slug, id: tab._id } }, body: { orderId: other._id } }));
      setTab(r.to);
      setMergeFrom('');
      await refetch();
    });

  const split = () =>
    act(async () => {
      if (!tab) return;
      const n = Number(splitN);
      if (!(Number.isInteger(n) && n >= 2 && n <= 50)) {
        setFieldErrors({ parts: t.splitParts });
        return;
      }
      const r = await call(api.POST('/t/{slug}/orders/{id}/split', { params: { path: { slug, id: tab._id } }, body: { parts: n } }));
      setTab(r.parent);
      setParts([...r.parts].sort((a, b) => a.orderNumber.localeCompare(b.orderNumber)));
      setNotice(t.splitDone);
    });

  const close = () =>
    act(async () => {
      if (!tab) return;
      for (const p of parts) {
        if (p.status !== 'delivered' && p.status !== 'cancelled') await call(api.POST('/t/{slug}/orders/{id}/close-tab', { params: { path: { slug, id: p._id } }, body: {} }));
      }
      const closed = await call(api.POST('/t/{slug}/orders/{id}/close-tab', { params: { path: { slug, id: tab._id } }, body: {} }));
      setTab(closed);
      setNotice(t.closed);
      const list = await call(api.GET('/t/{slug}/tables', { params: { path: { slug } } }));
      setTables(list);
    });

  const open = tab && tab.status !== 'delivered' && tab.status !== 'cancelled';
  const dueAll = tab ? (tab.isSplit ? parts.reduce((s, p) => s + p.amountDue, 0) : tab.amountDue) : 0;
  const pdvInfo = pdvs.find((p) => p._id === (tab?.pdv ?? pdv));
  const freeTables = tables.filter((x) => x.status === 'available' && x._id !== tableId);
  const busyTables = tables.filter((x) => x.status === 'occupied' && x._id !== tableId);

  return (
    <section class="floor tab-page">
      <div class="toolbar floor-toolbar">
        <h1>
          {table ? t.tableN(table.number) : t.tabTitle}
          {tab ? ` · #${tab.orderNumber.split('-').pop()}` : ''}
        </h1>
        <span class={`live-dot ${connection}`} role="status">
          {connection === 'live' ? t.live : t.reconnecting}
        </span>
        <Link href={`/admin/t/${slug}/floor`} class="btn">
          {t.backToFloor}
        </Link>
      </div>
      {error && (
        <p role="alert" class="form-error">
          {error}
        </p>
      )}
      {notice && (
        <p role="status" class="notice" data-testid="tab-notice">
          {notice}
        </p>
      )}
      {tab === undefined || !menu ? (
        <p aria-busy="true">{t.loading}</p>
      ) : (
        <div class="tab-layout">
          <div class="stack">
            {(!tab || open) && !tab?.isSplit && (
              <section class="card" aria-labelledby="round-h">
                <h2 id="round-h">{tab ? t.round : t.newTab}</h2>
                {!tab && (
                  <div class="inline-form">
                    <div class={`field${fieldErrors.pdv ? ' field-invalid' : ''}`}>
                      <label for="tab-pdv">{t.pdv}</label>
                      <select
                        id="tab-pdv"
                        value={pdv}
                        onChange={(e) => {
                          setPdv(e.currentTarget.value);
                          savePdv(slug, e.currentTarget.value);
                        }}
                      >
                        <option value="">{t.noPdv}</option>
                        {pdvs.map((p) => (
                          <option key={p._id} value={p._id}>
                            {p.branchName ? `${p.name} · ${p.branchName}` : p.name}
                          </option>
                        ))}
                      </select>
                      {fieldErrors.pdv && <p class="field-error">{fieldErrors.pdv}</p>}
                    </div>
                    <div class={`field${fieldErrors.covers ? ' field-invalid' : ''}`}>
                      <label for="tab-covers">{t.covers}</label>
                      <input
                        id="tab-covers"
                        type="number"
                        min={0}
                        max={500}
                        inputMode="numeric"
                        value={covers}
                        onInput={(e) => setCovers(e.currentTarget.value)}
                        aria-invalid={fieldErrors.covers ? 'true' : undefined}
                      />
                      {fieldErrors.covers && <p class="field-error">{fieldErrors.covers}</p>}
                    </div>
                  </div>
                )}
                <RoundList lines={round} groups={menu.groups} onChange={setRound} />
                {fieldErrors.items && round.length === 0 && (
                  <p class="field-error" role="alert">
                    {fieldErrors.items}
                  </p>
                )}
                <div class="actions">
                  <button type="button" class="btn primary" disabled={busy} onClick={() => void send()} data-testid="send-round">
                    {tab ? t.sendRound : t.openTab}
                    {round.length ? ` · ${formatMoney(round.reduce((s, l) => s + Math.round(l.unitPrice * l.quantity), 0))}` : ''}
                  </button>
                </div>
                <RoundBuilder items={menu.items} categories={menu.categories} groups={menu.groups} lines={round} onChange={setRound} />
              </section>
            )}
            {tab && open && !tab.isSplit && (
              <section class="card" aria-labelledby="table-h">
                <h2 id="table-h">{t.tableOps}</h2>
                <div class="inline-form">
                  <div class="field">
                    <label for="move-to">{t.moveTo}</label>
                    <select id="move-to" value={moveTo} onChange={(e) => setMoveTo(e.currentTarget.value)}>
                      <option value="">{freeTables.length ? '—' : t.noFreeTables}</option>
                      {freeTables.map((x) => (
                        <option key={x._id} value={x._id}>
                          {t.tableN(x.number)}
                        </option>
                      ))}
                    </select>
                  </div>
                  <button type="button" class="btn" disabled={busy || !moveTo} onClick={() => void move()}>
                    {t.move}
                  </button>
                </div>
                <div class="inline-form">
                  <div class="field">
                    <label for="merge-from">{t.mergeWith}</label>
                    <select id="merge-from" value={mergeFrom} onChange={(e) => setMergeFrom(e.currentTarget.value)}>
                      <option value="">{busyTables.length ? '—' : t.noOtherTabs}</option>
                      {busyTables.map((x) => (
                        <option key={x._id} value={x._id}>
                          {t.tableN(x.number)}
                        </option>
                      ))}
                    </select>
                  </div>
                  <button type="button" class="btn" disabled={busy || !mergeFrom} onClick={() => void merge()}>
                    {t.merge}
                  </button>
                </div>
                {tab.amountPaid === 0 && (
                  <div class="inline-form">
                    <div class={`field${fieldErrors.parts ? ' field-invalid' : ''}`}>
                      <label for="split-n">{t.splitParts}</label>
                      <input id="split-n" type="number" min={2} max={50} value={splitN} onInput={(e) => setSplitN(e.currentTarget.value)} />
                      {fieldErrors.parts && <p class="field-error">{fieldErrors.parts}</p>}
                    </div>
                    <button type="button" class="btn" disabled={busy} onClick={() => void split()}>
                      {t.split}
                    </button>
                  </div>
                )}
              </section>
            )}
          </div>
          <div class="stack">
            {!tab ? (
              <p class="empty">{t.noTab}</p>
            ) : (
              <>
                <section class="card" aria-labelledby="bill-h">
                  <h2 id="bill-h">
                    {t.bill} · {formatTime(tab.createdAt)}
                  </h2>
                  <BillPanel slug={slug} order={tab} onChange={setTab} editable={Boolean(open) && !tab.isSplit} />
                </section>
                {open && (
                  <section class="card" aria-labelledby="pay-h">
                    <h2 id="pay-h">{t.payments}</h2>
                    {tab.isSplit ? (
                      parts.map((p, i) => (
                        <div key={p._id} class="stack">
                          <h3>
                            {t.part(i + 1)} · {formatMoney(p.total)}
                          </h3>
                          <PaymentBox slug={slug} order={p} live={live} hasTerminal={Boolean(pdvInfo?.gatewayATerminalSerial)} onChanged={() => void refetch()} idPrefix={`part${i + 1}`} />
                        </div>
                      ))
                    ) : (
                      <PaymentBox slug={slug} order={tab} live={live} hasTerminal={Boolean(pdvInfo?.gatewayATerminalSerial)} onChanged={() => void refetch()} idPrefix="tab" />
                    )}
                    <div class="actions">
                      <button type="button" class="btn primary" disabled={busy || dueAll > 0} aria-describedby={dueAll > 0 ? 'close-hint' : undefined} onClick={() => void close()} data-testid="close-tab">
                        {t.closeTab}
                      </button>
                    </div>
                    {dueAll > 0 && (
                      <p class="hint" id="close-hint">
                        {t.closeNeedsPay}
                      </p>
                    )}
                  </section>
                )}
              </>
            )}
          </div>
        </div>
      )}
    </section>
  );
}
