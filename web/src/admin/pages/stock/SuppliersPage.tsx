/** Suppliers (admin): the list (paged by the API: `page`, `limit`, X-Total-Count), create and edit with the API's field errors by the fields. */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../../../shared/api.js';
import { api, call } from '../../api/client.js';
import type { components } from '../../api/schema.js';
import type { PageProps } from '../../types.js';
import { Field, fieldId } from '../../ui/Field.js';
import { callPage } from '../../ui/list-page.js';
import { Pager } from '../../ui/Pager.js';
import { errorText } from './lib.js';
import { s } from './strings.js';
import './stock.css';

type Supplier = components['schemas']['Supplier'];
const FIELDS = ['name', 'cnpj', 'email', 'phone', 'contactName', 'address', 'categories', 'notes'] as const;
type Name = (typeof FIELDS)[number];
const LIMIT = 20;

export default function SuppliersPage({ slug }: PageProps) {
  const [list, setList] = useState<Supplier[] | null>(null);
  const [editing, setEditing] = useState<Supplier | 'new' | null>(null);
  const [page, setPage] = useState(1);
  const [total, setTotal] = useState(0);
  const [error, setError] = useState<string | null>(null);

  const load = () =>
    callPage(api.GET('/t/{slug}/inventory/suppliers', { params: { path: { slug }, query: { page, limit: LIMIT } } }))
      .then(({ rows, total: count }) => {
        setList(rows);
        setTotal(count);
      })
      .catch((err) => setError(errorText(err, s.loadFailed)));
  useEffect(() => {
    void load();
  }, [slug, page]);

  return (
    <section class="stock-page">
      <h1>{s.suppliersTitle}</h1>
      {editing === null && (
        <div class="toolbar">
          <button type="button" class="btn primary" onClick={() => setEditing('new')}>
            {s.newSupplier}
          </button>
        </div>
      )}
      {editing !== null && (
        <SupplierForm
          key={editing === 'new' ? 'new' : editing._id}
          slug={slug}
          supplier={editing === 'new' ? null : editing}
          onCancel={() => setEditing(null)}
          onDone={() => {
            setEditing(null);
            void load();
          }}
        />
      )}
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      {list === null ? (
        !error && <p aria-busy="true">{s.loading}</p>
      ) : list.length === 0 ? (
        <p class="empty">{s.noSuppliers}</p>
      ) : (
        <>
          <div class="table-scroll">
            <table class="data" data-testid="suppliers">
              <thead>
                <tr>
                  <th scope="col">{s.name}</th>
                  <th scope="col">{s.cnpj}</th>
                  <th scope="col">{s.contact}</th>
                  <th scope="col">{s.phone}</th>
                  <th scope="col">{s.status}</th>
                  <th scope="col">
                    <span class="sr-only">{s.actions}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.map((x) => (
                  <tr key={x._id}>
                    <td>
                      {x.name}
                      {x.categories.length > 0 && <div class="hint">{x.categories.join(', ')}</div>}
                    </td>
                    <td>{x.cnpj ?? '—'}</td>
                    <td>{[x.contactName, x.email].filter(Boolean).join(' · ') || '—'}</td>
                    <td>{x.phone ?? '—'}</td>
                    <td>{x.active ? s.active : s.inactive}</td>
                    <td>
                      <button type="button" class="btn small" onClick={() => setEditing(x)} aria-label={`${s.edit} ${x.name}`}>
                        {s.edit}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} total={total} limit={LIMIT} onPage={setPage} />
        </>
      )}
    </section>
  );
}

function SupplierForm({ slug, supplier, onDone, onCancel }: { slug: string; supplier: Supplier | null; onDone: () => void; onCancel: () => void }) {
  const [ids] = useState(() => ({ ...(Object.fromEntries(FIELDS.map((f) => [f, fieldId(`sup-${f}`)])) as Record<Name, string>), active: fieldId('sup-active') }));
  const [v, setV] = useState<Record<Name, string>>({
    name: supplier?.name ?? '',
    cnpj: supplier?.cnpj ?? '',
    email: supplier?.email ?? '',
    phone: supplier?.phone ?? '',
    contactName: supplier?.contactName ?? '',
    address: supplier?.address ?? '',
    categories: supplier?.categories.join(', ') ?? '',
    notes: supplier?.notes ?? '',
  });
  const [active, setActive] = useState(supplier?.active ?? true);
  const [errors, setErrors] = useState<Partial<Record<Name, string>>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: Event) {
    e.preventDefault();
    const errs: Partial<Record<Name, string>> = {};
    if (!v.name.trim()) errs.name = s.required;
    if (v.cnpj.trim() && v.cnpj.replace(/\D/g, '').length !== 14) errs.cnpj = s.badCnpj;
    if (v.email.trim() && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v.email.trim())) errs.email = 'E-mail inválido.';
    setErrors(errs);
    setFormError(null);
    if (Object.keys(errs).length) return;
    const opt = (x: string) => x.trim() || null;
    const body = {
      name: v.name.trim(),
      cnpj: opt(v.cnpj),
      email: opt(v.email),
      phone: opt(v.phone),
      contactName: opt(v.contactName),
      address: opt(v.address),
      categories: v.categories
        .split(',')
        .map((c) => c.trim())
        .filter(Boolean),
      notes: opt(v.notes),
      active,
    };
    setBusy(true);
    try {
      if (supplier) await call(api.PUT('/t/{slug}/inventory/suppliers/{id}', { params: { path: { slug, id: supplier._id } }, body }));
      else await call(api.POST('/t/{slug}/inventory/suppliers', { params: { path: { slug } }, body }));
      onDone();
    } catch (err) {
      if (err instanceof ApiError) {
        const next: Partial<Record<Name, string>> = {};
        for (const f of FIELDS) {
          const m = err.fieldMessage(f);
          if (m) next[f] = m;
        }
        if (err.code === 'cnpj_taken') next.cnpj = err.message;
        setErrors(next);
      }
      setFormError(errorText(err, s.failed));
    } finally {
      setBusy(false);
    }
  }

  const input = (name: Name, label: string, extra: Record<string, unknown> = {}) => (
    <Field id={ids[name]} label={label} error={errors[name]}>
      {(p) => <input {...p} {...extra} value={v[name]} onInput={(e) => setV({ ...v, [name]: e.currentTarget.value })} />}
    </Field>
  );

  return (
    <form class="card stock-form" noValidate onSubmit={submit} aria-label={supplier ? s.editSupplier : s.newSupplier}>
      <h2>{supplier ? s.editSupplier : s.newSupplier}</h2>
      <div class="grid">
        {input('name', s.name, { maxLength: 120 })}
        {input('cnpj', s.cnpj, { inputMode: 'numeric', maxLength: 18 })}
        {input('email', s.email, { type: 'email' })}
        {input('phone', s.phone, { type: 'tel', maxLength: 30 })}
        {input('contactName', s.contact, { maxLength: 120 })}
        {input('categories', s.categories)}
      </div>
      {input('address', s.address, { maxLength: 300 })}
      {input('notes', s.notes, { maxLength: 1000 })}
      <label class="checkbox" for={ids.active}>
        <input id={ids.active} type="checkbox" checked={active} onChange={(e) => setActive(e.currentTarget.checked)} /> {s.active}
      </label>
      {formError && (
        <p class="form-error" role="alert">
          {formError}
        </p>
      )}
      <div class="toolbar">
        <button type="submit" class="btn primary" disabled={busy}>
          {s.save}
        </button>
        <button type="button" class="btn" onClick={onCancel}>
          {s.cancel}
        </button>
      </div>
    </form>
  );
}
