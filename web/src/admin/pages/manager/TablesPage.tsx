/** Tables (list, create, edit, delete) and the printable QR sheets of each PDV (`GET /t/{slug}/pdvs/{pdvId}/table-qr`). */
import { useEffect, useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import { session } from '../../session.js';
import { Field } from '../../ui/Field.js';
import { Pager } from '../../ui/Pager.js';
import type { PageProps } from '../../types.js';
import { apiField, errorText, Status, useIds } from './common.js';
import { strings as t } from './strings.js';
import type { Pdv, Table } from './types.js';
import './manager.css';

const PAGE = 20;
type Errors = Partial<Record<'number' | 'capacity' | 'location', string>>;

export default function TablesPage({ slug }: PageProps) {
  const [tables, setTables] = useState<Table[] | null>(null);
  const [editing, setEditing] = useState<Table | 'new' | null>(null);
  const [page, setPage] = useState(1);
  const [pdvs, setPdvs] = useState<(Pdv & { branchName: string })[] | null>(null);
  const [status, setStatus] = useState<{ text: string; error?: boolean }>({ text: '' });

  useEffect(() => {
    call(api.GET('/t/{slug}/tables', { params: { path: { slug } } }))
      .then(setTables)
      .catch((err) => {
        setTables([]);
        setStatus({ text: t.loadFailed(errorText(err)), error: true });
      });
    call(api.GET('/api/t/{slug}/admin/branches', { params: { path: { slug }, query: { limit: 100 } } }))
      .then((branches) =>
        Promise.all(
          branches.data.map((b) =>
            call(api.GET('/api/t/{slug}/admin/branches/{id}/pdvs', { params: { path: { slug, id: b._id } } })).then((list) =>
              list.map((p) => ({ ...p, branchName: b.name })),
            ),
          ),
        ),
      )
      .then((lists) => setPdvs(lists.flat().filter((p) => p.active)))
      .catch(() => setPdvs([]));
  }, [slug]);

  async function remove(table: Table) {
    if (!confirm(t.confirmDelete(t.tableN(table.number)))) return;
    try {
      await call(api.DELETE('/t/{slug}/tables/{id}', { params: { path: { slug, id: table._id } } }));
      setTables((list) => (list ?? []).filter((x) => x._id !== table._id));
      setStatus({ text: t.saved });
    } catch (err) {
      setStatus({ text: t.failed(errorText(err)), error: true });
    }
  }

  async function openQr(pdv: Pdv) {
    setStatus({ text: '' });
    const tab = window.open('', '_blank');
    try {
      const token = await session.accessToken();
      const res = await fetch(`/t/${encodeURIComponent(slug)}/pdvs/${pdv._id}/table-qr`, { headers: { authorization: `Bearer ${token}` } });
      if (!res.ok) throw new Error(`${res.status} ${res.statusText}`);
      const url = URL.createObjectURL(await res.blob());
      if (tab) tab.location.href = url;
      else {
        const a = document.createElement('a');
        a.href = url;
        a.download = `qr-mesas-${pdv.slug}.html`;
        a.click();
        setStatus({ text: t.popupBlocked });
      }
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
    } catch (err) {
      tab?.close();
      setStatus({ text: t.failed(errorText(err)), error: true });
    }
  }

  if (!tables) return <p aria-busy="true">{t.loading}</p>;
  const sorted = [...tables].sort((a, b) => a.number - b.number);
  const shown = sorted.slice((page - 1) * PAGE, page * PAGE);

  return (
    <section class="mgr">
      <div class="toolbar">
        <h1 class="grow">{t.titles.tables}</h1>
        <button type="button" class="btn primary" onClick={() => setEditing('new')}>
          {t.newTable}
        </button>
      </div>
      <Status {...status} />
      {editing && (
        <TableForm
          key={editing === 'new' ? 'new' : editing._id}
          slug={slug}
          table={editing === 'new' ? null : editing}
          next={(sorted.at(-1)?.number ?? 0) + 1}
          onSaved={(saved, created) => {
            setTables((list) => (created ? [...(list ?? []), saved] : (list ?? []).map((x) => (x._id === saved._id ? saved : x))));
            setEditing(null);
            setStatus({ text: t.saved });
          }}
          onClose={() => setEditing(null)}
        />
      )}
      {tables.length === 0 ? (
        <p class="empty">{t.noTables}</p>
      ) : (
        <>
          <div class="table-wrap">
            <table class="data">
              <thead>
                <tr>
                  <th scope="col">{t.number}</th>
                  <th scope="col" class="num">
                    {t.capacity}
                  </th>
                  <th scope="col">{t.location}</th>
                  <th scope="col" class="hide-sm">
                    {t.status}
                  </th>
                  <th scope="col">
                    <span class="sr-only">{t.edit}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {shown.map((x) => (
                  <tr key={x._id}>
                    <td>{t.tableN(x.number)}</td>
                    <td class="num">{x.capacity}</td>
                    <td>{x.location ?? '—'}</td>
                    <td class="hide-sm">{t.tableStatus[x.status]}</td>
                    <td class="row-actions">
                      <button type="button" class="btn small" aria-label={`${t.edit} ${t.tableN(x.number)}`} onClick={() => setEditing(x)}>
                        {t.edit}
                      </button>
                      <button type="button" class="btn small" aria-label={`${t.remove} ${t.tableN(x.number)}`} onClick={() => void remove(x)}>
                        {t.remove}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} total={tables.length} limit={PAGE} onPage={setPage} />
        </>
      )}
      <h2>{t.qrSheets}</h2>
      <p class="hint">{t.qrHint}</p>
      {pdvs === null ? (
        <p aria-busy="true">{t.loading}</p>
      ) : pdvs.length === 0 ? (
        <p class="empty">{t.noPdvs}</p>
      ) : (
        <ul class="plain qr-list">
          {pdvs.map((p) => (
            <li key={p._id}>
              <button type="button" class="btn" onClick={() => void openQr(p)}>
                {t.printQr(pdvs.length > 1 ? `${p.branchName} – ${p.name}` : p.name)}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function TableForm({
  slug,
  table,
  next,
  onSaved,
  onClose,
}: {
  slug: string;
  table: Table | null;
  next: number;
  onSaved: (t: Table, created: boolean) => void;
  onClose: () => void;
}) {
  const ids = useIds('number', 'capacity', 'location');
  const [number, setNumber] = useState(String(table?.number ?? next));
  const [capacity, setCapacity] = useState(String(table?.capacity ?? 4));
  const [location, setLocation] = useState(table?.location ?? '');
  const [errors, setErrors] = useState<Errors>({});
  const [formError, setFormError] = useState('');

  async function submit(e: Event) {
    e.preventDefault();
    const n = Number(number);
    const c = Number(capacity);
    const errs: Errors = {};
    if (!Number.isInteger(n) || n < 1 || n > 9999) errs.number = t.badNumber;
    if (!Number.isInteger(c) || c < 1 || c > 100) errs.capacity = t.badCapacity;
    setErrors(errs);
    setFormError('');
    if (Object.keys(errs).length) return;
    const loc = location.trim();
    try {
      const saved = table
        ? await call(api.PUT('/t/{slug}/tables/{id}', { params: { path: { slug, id: table._id } }, body: { number: n, capacity: c, location: loc || null } }))
        : await call(api.POST('/t/{slug}/tables', { params: { path: { slug } }, body: { number: n, capacity: c, ...(loc ? { location: loc } : {}) } }));
      onSaved(saved, !table);
    } catch (err) {
      setErrors({ number: apiField(err, 'number'), capacity: apiField(err, 'capacity'), location: apiField(err, 'location') });
      setFormError(t.failed(errorText(err)));
    }
  }

  return (
    <form class="card" onSubmit={submit} noValidate>
      <h2>{table ? `${t.edit} ${t.tableN(table.number)}` : t.newTable}</h2>
      <div class="grid3">
        <Field label={t.number} id={ids.number} error={errors.number}>
          {(p) => <input {...p} type="number" min={1} max={9999} inputMode="numeric" value={number} onInput={(e) => setNumber(e.currentTarget.value)} />}
        </Field>
        <Field label={t.capacity} id={ids.capacity} error={errors.capacity}>
          {(p) => <input {...p} type="number" min={1} max={100} inputMode="numeric" value={capacity} onInput={(e) => setCapacity(e.currentTarget.value)} />}
        </Field>
        <Field label={t.location} id={ids.location} error={errors.location} hint={t.locationHint}>
          {(p) => <input {...p} value={location} maxLength={80} onInput={(e) => setLocation(e.currentTarget.value)} />}
        </Field>
      </div>
      <Status text={formError} error />
      <div class="toolbar">
        <button type="submit" class="btn primary">
          {t.save}
        </button>
        <button type="button" class="btn" onClick={onClose}>
          {t.cancel}
        </button>
      </div>
    </form>
  );
}
