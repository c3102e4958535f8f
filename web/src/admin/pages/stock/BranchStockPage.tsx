/**
 * Stock per PDV: the rows of the caller's PDVs (filtered by PDV, paged here), a count at a PDV (sets the
 * physical quantity and minimum) and a transfer between two PDVs (admin).
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../../../shared/api.js';
import { api, call } from '../../api/client.js';
import { callAll, callPage, ShowingOf } from '../../ui/list-page.js';
import type { components } from '../../api/schema.js';
import type { PageProps } from '../../types.js';
import { Field, fieldId } from '../../ui/Field.js';
import { Pager } from '../../ui/Pager.js';
import { errorText, formatQty, parseDecimal, threeDecimals, useInventoryLive } from './lib.js';
import { s } from './strings.js';
import './stock.css';

type Item = components['schemas']['InventoryItem'];
type Row = {
  _id: string;
  item: { _id: string; name: string; sku: string; unit: string };
  pdv: { _id: string; name: string };
  physicalQuantity: number;
  availableQuantity: number;
  minQuantity: number | null;
};
type Pdv = { _id: string; name: string };

const LIMIT = 25;
const ids = { pdv: fieldId('bs-pdv') };

export default function BranchStockPage({ slug, tenant, role }: PageProps) {
  const [rows, setRows] = useState<Row[] | null>(null);
  const [total, setTotal] = useState(0);
  const [items, setItems] = useState<Item[]>([]);
  const [pdvs, setPdvs] = useState<Pdv[]>([]);
  const [pdv, setPdv] = useState('');
  const [page, setPage] = useState(1);
  const [error, setError] = useState<string | null>(null);
  const isAdmin = role === 'admin' || role === 'superadmin';
  const path = { params: { path: { slug } } };

  const load = () =>
    callPage(api.GET('/t/{slug}/branch-stock', path))
      .then(({ rows: list, total }) => {
        setRows(list as Row[]);
        setTotal(total);
        setError(null);
      })
      .catch((err) => setError(errorText(err, s.loadFailed)));

  useEffect(() => {
    void load();
    callAll((p) => api.GET('/t/{slug}/inventory', { params: { path: { slug }, query: { page: p } } }))
      .then((list) => setItems(list.sort((a, b) => a.name.localeCompare(b.name, 'pt-BR'))))
      .catch(() => {});
    // The PDV list comes from the branches (admin, branch manager); staff see the PDVs of their rows.
    if (role !== 'staff')
      call(api.GET('/api/t/{slug}/admin/branches', { params: { path: { slug }, query: { limit: 100 } } }))
        .then(async (page) => {
          const all: Pdv[] = [];
          for (const b of page.data) {
            const list = await call(api.GET('/api/t/{slug}/admin/branches/{id}/pdvs', { params: { path: { slug, id: b._id } } })).catch(() => []);
            for (const p of list) all.push({ _id: p._id, name: `${p.name} (${b.name})` });
          }
          setPdvs(all);
        })
        .catch(() => {});
  }, [slug]);

  useInventoryLive(tenant._id, role !== 'branch_manager', {
    onConnect: () => void load(),
    onEvent: (event, payload) => {
      if (event === 'stockUpdate' && (payload as { pdvId?: string }).pdvId) void load();
    },
  });

  const known = new Map<string, string>();
  for (const p of pdvs) known.set(p._id, p.name);
  for (const r of rows ?? []) if (!known.has(r.pdv._id)) known.set(r.pdv._id, r.pdv.name);
  const pdvOptions = [...known].map(([_id, name]) => ({ _id, name })).sort((a, b) => a.name.localeCompare(b.name, 'pt-BR'));
  const shown = (rows ?? []).filter((r) => !pdv || r.pdv._id === pdv).sort((a, b) => a.pdv.name.localeCompare(b.pdv.name) || a.item.name.localeCompare(b.item.name, 'pt-BR'));

  return (
    <section class="stock-page">
      <h1>{s.branchTitle}</h1>
      <p>{s.branchIntro}</p>
      <div class="toolbar">
        <Field id={ids.pdv} label={s.pdv}>
          {(p) => (
            <select
              {...p}
              value={pdv}
              onChange={(e) => {
                setPdv(e.currentTarget.value);
                setPage(1);
              }}
            >
              <option value="">{s.allPdvs}</option>
              {pdvOptions.map((o) => (
                <option key={o._id} value={o._id}>
                  {o.name}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      {rows === null ? (
        !error && <p aria-busy="true">{s.loading}</p>
      ) : shown.length === 0 ? (
        <p class="empty">{s.noBranchStock}</p>
      ) : (
        <>
          <div class="table-scroll">
            <table class="data" data-testid="branch-stock">
              <thead>
                <tr>
                  <th scope="col">{s.pdv}</th>
                  <th scope="col">{s.item}</th>
                  <th scope="col" class="num">
                    {s.physical}
                  </th>
                  <th scope="col" class="num">
                    {s.available}
                  </th>
                  <th scope="col" class="num">
                    {s.min}
                  </th>
                </tr>
              </thead>
              <tbody>
                {shown.slice((page - 1) * LIMIT, page * LIMIT).map((r) => {
                  const low = r.minQuantity !== null && r.availableQuantity <= r.minQuantity;
                  return (
                    <tr key={r._id} class={low ? 'low' : undefined}>
                      <td>{r.pdv.name}</td>
                      <td>
                        {r.item.name} {low && <span class="badge badge-low">{s.low}</span>}
                      </td>
                      <td class="num">
                        {formatQty(r.physicalQuantity)} {s.units[r.item.unit] ?? r.item.unit}
                      </td>
                      <td class="num">{formatQty(r.availableQuantity)}</td>
                      <td class="num">{r.minQuantity === null ? '—' : formatQty(r.minQuantity)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <Pager page={page} total={shown.length} limit={LIMIT} onPage={setPage} />
          <ShowingOf shown={rows?.length ?? 0} total={total} />
        </>
      )}
      <div class="stock-columns">
        <CountForm slug={slug} items={items} pdvs={pdvOptions} onDone={() => void load()} />
        {isAdmin && <TransferForm slug={slug} items={items} pdvs={pdvOptions} onDone={() => void load()} />}
      </div>
    </section>
  );
}

type FormProps = { slug: string; items: Item[]; pdvs: Pdv[]; onDone: () => void };

function Select({ id, label, value, onChange, options, placeholder, error }: {
  id: string;
  label: string;
  value: string;
  onChange: (v: string) => void;
  options: { _id: string; name: string }[];
  placeholder: string;
  error?: string;
}) {
  return (
    <Field id={id} label={label} error={error}>
      {(p) => (
        <select {...p} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
          <option value="">{placeholder}</option>
          {options.map((o) => (
            <option key={o._id} value={o._id}>
              {o.name}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

function CountForm({ slug, items, pdvs, onDone }: FormProps) {
  const [ids] = useState(() => ({ pdv: fieldId('ct-pdv'), item: fieldId('ct-item'), qty: fieldId('ct-qty'), min: fieldId('ct-min') }));
  const [v, setV] = useState({ pdv: '', item: '', qty: '', min: '' });
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});
  const [msg, setMsg] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: Event) {
    e.preventDefault();
    const errs: Record<string, string> = {};
    if (!v.pdv) errs.pdv = s.required;
    if (!v.item) errs.itemId = s.required;
    const qty = parseDecimal(v.qty);
    if (qty === null || qty < 0 || !threeDecimals(qty)) errs.physicalQuantity = s.badNumber;
    const min = v.min.trim() ? parseDecimal(v.min) : undefined;
    if (min === null || (min !== undefined && (min < 0 || !threeDecimals(min)))) errs.minQuantity = s.badNumber;
    setErrors(errs);
    setMsg(null);
    if (Object.keys(errs).length) return;
    setBusy(true);
    try {
      await call(
        api.PUT('/t/{slug}/branch-stock/{pdvId}', {
          params: { path: { slug, pdvId: v.pdv } },
          body: { itemId: v.item, physicalQuantity: qty!, ...(min !== undefined ? { minQuantity: min } : {}) },
        }),
      );
      setMsg({ ok: true, text: s.saved });
      setV({ ...v, qty: '', min: '' });
      onDone();
    } catch (err) {
      if (err instanceof ApiError)
        setErrors({
          itemId: err.fieldMessage('itemId'),
          physicalQuantity: err.fieldMessage('physicalQuantity'),
          minQuantity: err.fieldMessage('minQuantity'),
        });
      setMsg({ ok: false, text: errorText(err, s.failed) });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="card stock-form" noValidate onSubmit={submit} aria-labelledby="ct-title">
      <h2 id="ct-title">{s.setCount}</h2>
      <Select id={ids.pdv} label={s.pdv} value={v.pdv} onChange={(pdv) => setV({ ...v, pdv })} options={pdvs} placeholder={s.choosePdv} error={errors.pdv} />
      <Select
        id={ids.item}
        label={s.item}
        value={v.item}
        onChange={(item) => setV({ ...v, item })}
        options={items}
        placeholder={s.chooseItem}
        error={errors.itemId}
      />
      <div class="grid">
        <Field id={ids.qty} label={s.physical} error={errors.physicalQuantity}>
          {(p) => <input {...p} inputMode="decimal" value={v.qty} onInput={(e) => setV({ ...v, qty: e.currentTarget.value })} />}
        </Field>
        <Field id={ids.min} label={s.minPdv} error={errors.minQuantity}>
          {(p) => <input {...p} inputMode="decimal" value={v.min} onInput={(e) => setV({ ...v, min: e.currentTarget.value })} />}
        </Field>
      </div>
      {msg && (
        <p class={msg.ok ? 'notice' : 'form-error'} role={msg.ok ? 'status' : 'alert'}>
          {msg.text}
        </p>
      )}
      <button type="submit" class="btn primary" disabled={busy}>
        {s.save}
      </button>
    </form>
  );
}

function TransferForm({ slug, items, pdvs, onDone }: FormProps) {
  const [ids] = useState(() => ({ from: fieldId('tr-from'), to: fieldId('tr-to'), item: fieldId('tr-item'), qty: fieldId('tr-qty') }));
  const [v, setV] = useState({ from: '', to: '', item: '', qty: '' });
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});
  const [msg, setMsg] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: Event) {
    e.preventDefault();
    const errs: Record<string, string> = {};
    if (!v.from) errs.fromPdvId = s.required;
    if (!v.to) errs.toPdvId = s.required;
    else if (v.to === v.from) errs.toPdvId = s.samePdv;
    if (!v.item) errs.itemId = s.required;
    const qty = parseDecimal(v.qty);
    if (qty === null || !threeDecimals(qty)) errs.quantity = s.badNumber;
    else if (qty <= 0) errs.quantity = s.positive;
    setErrors(errs);
    setMsg(null);
    if (Object.keys(errs).length) return;
    setBusy(true);
    try {
      const body = { fromPdvId: v.from, toPdvId: v.to, itemId: v.item, quantity: qty! };
      await call(api.POST('/t/{slug}/branch-stock/transfer', { params: { path: { slug } }, body }));
      setMsg({ ok: true, text: s.transferred });
      setV({ ...v, qty: '' });
      onDone();
    } catch (err) {
      if (err instanceof ApiError)
        setErrors({
          fromPdvId: err.fieldMessage('fromPdvId'),
          toPdvId: err.fieldMessage('toPdvId'),
          itemId: err.fieldMessage('itemId'),
          quantity: err.fieldMessage('quantity'),
        });
      setMsg({ ok: false, text: errorText(err, s.failed) });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="card stock-form" noValidate onSubmit={submit} aria-labelledby="tr-title">
      <h2 id="tr-title">{s.transferTitle}</h2>
      <div class="grid">
        <Select
          id={ids.from}
          label={s.from}
          value={v.from}
          onChange={(from) => setV({ ...v, from })}
          options={pdvs}
          placeholder={s.choosePdv}
          error={errors.fromPdvId}
        />
        <Select id={ids.to} label={s.to} value={v.to} onChange={(to) => setV({ ...v, to })} options={pdvs} placeholder={s.choosePdv} error={errors.toPdvId} />
      </div>
      <Select
        id={ids.item}
        label={s.item}
        value={v.item}
        onChange={(item) => setV({ ...v, item })}
        options={items}
        placeholder={s.chooseItem}
        error={errors.itemId}
      />
      <Field id={ids.qty} label={s.quantity} error={errors.quantity}>
        {(p) => <input {...p} inputMode="decimal" value={v.qty} onInput={(e) => setV({ ...v, qty: e.currentTarget.value })} />}
      </Field>
      {msg && (
        <p class={msg.ok ? 'notice' : 'form-error'} role={msg.ok ? 'status' : 'alert'}>
          {msg.text}
        </p>
      )}
      <button type="submit" class="btn primary" disabled={busy}>
        {s.transfer}
      </button>
    </form>
  );
}
