/** Reservations of a day: pick the day, list them, confirm, seat, mark no-show or cancel, and create one (phone bookings). */
import { useEffect, useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import { Field } from '../../ui/Field.js';
import { formatDay, today } from '../../ui/format.js';
import { callAll } from '../../ui/list-page.js';
import { Pager } from '../../ui/Pager.js';
import type { PageProps } from '../../types.js';
import { apiField, errorText, Status, useIds } from './common.js';
import { strings as t } from './strings.js';
import type { Reservation, Table } from './types.js';
import './manager.css';

const PAGE = 20;
const PHONE = /^\+?(?:[ ().-]*[0-9]){8,15}[ ().-]*$/;
type Fields = 'customerName' | 'customerPhone' | 'customerEmail' | 'date' | 'time' | 'partySize' | 'tableId' | 'durationMinutes' | 'notes';

export default function ReservationsPage({ slug }: PageProps) {
  const ids = useIds('day');
  const [day, setDay] = useState(today());
  const [list, setList] = useState<Reservation[] | null>(null);
  const [tables, setTables] = useState<Table[]>([]);
  const [creating, setCreating] = useState(false);
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState<{ text: string; error?: boolean }>({ text: '' });

  async function load(d: string) {
    if (d < today()) {
      setList([]);
      return setStatus({ text: t.pastDay, error: true });
    }
    try {
      const rows = await callAll((page) => api.GET('/t/{slug}/reservations', { params: { path: { slug }, query: { date: d, page } } }));
      setList(rows.filter((r) => r.date === d).sort((a, b) => a.time.localeCompare(b.time)));
      setStatus({ text: '' });
    } catch (err) {
      setList([]);
      setStatus({ text: t.loadFailed(errorText(err)), error: true });
    }
  }
  useEffect(() => {
    void load(day);
    setPage(1);
  }, [day]);
  useEffect(() => {
    call(api.GET('/t/{slug}/tables', { params: { path: { slug } } }))
      .then((x) => setTables(x.sort((a, b) => a.number - b.number)))
      .catch(() => {});
  }, [slug]);

  const tableName = (id: string | null) => {
    const x = id ? tables.find((tb) => tb._id === id) : null;
    return x ? t.tableN(x.number) : t.noTable;
  };

  async function act(r: Reservation, action: 'confirm' | 'seat' | 'no_show' | 'cancel') {
    const path = { slug, id: r._id };
    try {
      const next =
        action === 'seat'
          ? await call(api.POST('/t/{slug}/reservations/{id}/seat', { params: { path }, body: {} }))
          : action === 'no_show'
            ? await call(api.POST('/t/{slug}/reservations/{id}/no-show', { params: { path } }))
            : await call(api.PUT('/t/{slug}/reservations/{id}', { params: { path }, body: { status: action === 'confirm' ? 'confirmed' : 'cancelled' } }));
      setList((l) => (l ?? []).map((x) => (x._id === next._id ? next : x)));
      setStatus({ text: t.saved });
    } catch (err) {
      setStatus({ text: t.failed(errorText(err)), error: true });
    }
  }

  const shown = (list ?? []).slice((page - 1) * PAGE, page * PAGE);
  return (
    <section class="mgr">
      <div class="toolbar">
        <h1 class="grow">{t.titles.reservations}</h1>
        <div class="field inline">
          <label for={ids.day}>{t.day}</label>
          <input id={ids.day} type="date" min={today()} value={day} onChange={(e) => e.currentTarget.value && setDay(e.currentTarget.value)} />
        </div>
        <button type="button" class="btn primary" onClick={() => setCreating(true)}>
          {t.newReservation}
        </button>
      </div>
      <Status {...status} />
      {creating && (
        <ReservationForm
          slug={slug}
          day={day}
          tables={tables}
          onSaved={(r) => {
            setCreating(false);
            if (r.date === day) setList((l) => [...(l ?? []), r].sort((a, b) => a.time.localeCompare(b.time)));
            else setDay(r.date);
            setStatus({ text: t.saved });
          }}
          onClose={() => setCreating(false)}
        />
      )}
      {!list ? (
        <p aria-busy="true">{t.loading}</p>
      ) : list.length === 0 ? (
        <p class="empty">{t.noReservations}</p>
      ) : (
        <>
          <div class="table-wrap">
            <table class="data">
              <caption class="sr-only">{formatDay(day)}</caption>
              <thead>
                <tr>
                  <th scope="col">{t.time}</th>
                  <th scope="col">{t.customer}</th>
                  <th scope="col" class="num">
                    {t.party}
                  </th>
                  <th scope="col" class="hide-sm">
                    {t.table}
                  </th>
                  <th scope="col">{t.status}</th>
                  <th scope="col">
                    <span class="sr-only">{t.actionsFor('')}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {shown.map((r) => {
                  const open = r.status === 'pending' || r.status === 'confirmed';
                  return (
                    <tr key={r._id}>
                      <td>{r.time}</td>
                      <td>
                        {r.customerName}
                        <br />
                        <span class="hint">{r.customerPhone}</span>
                        {r.notes && <span class="hint"> · {r.notes}</span>}
                      </td>
                      <td class="num">{r.partySize}</td>
                      <td class="hide-sm">{tableName(r.table)}</td>
                      <td>
                        <span class={`tag st-${r.status}`}>{t.resStatus[r.status]}</span>
                      </td>
                      <td>
                        {open && (
                          <div class="row-actions" role="group" aria-label={t.actionsFor(r.customerName)}>
                            {r.status === 'pending' && (
                              <button type="button" class="btn small" onClick={() => void act(r, 'confirm')}>
                                {t.confirm}
                              </button>
                            )}
                            <button type="button" class="btn small" onClick={() => void act(r, 'seat')}>
                              {t.seat}
                            </button>
                            <button type="button" class="btn small" onClick={() => void act(r, 'no_show')}>
                              {t.noShow}
                            </button>
                            <button type="button" class="btn small" onClick={() => void act(r, 'cancel')}>
                              {t.cancelRes}
                            </button>
                          </div>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <Pager page={page} total={list.length} limit={PAGE} onPage={setPage} />
        </>
      )}
    </section>
  );
}

interface FormProps {
  slug: string;
  day: string;
  tables: Table[];
  onSaved: (r: Reservation) => void;
  onClose: () => void;
}

function ReservationForm({ slug, day, tables, onSaved, onClose }: FormProps) {
  const ids = useIds('customerName', 'customerPhone', 'customerEmail', 'date', 'time', 'partySize', 'tableId', 'durationMinutes', 'notes');
  const [v, setV] = useState<Record<Fields, string>>({
    customerName: '',
    customerPhone: '',
    customerEmail: '',
    date: day,
    time: '20:00',
    partySize: '2',
    tableId: '',
    durationMinutes: '',
    notes: '',
  });
  const [errors, setErrors] = useState<Partial<Record<Fields, string>>>({});
  const [formError, setFormError] = useState('');
  const set = (k: Fields) => (e: Event) => setV({ ...v, [k]: (e.currentTarget as HTMLInputElement).value });

  async function submit(e: Event) {
    e.preventDefault();
    const errs: Partial<Record<Fields, string>> = {};
    if (!v.customerName.trim()) errs.customerName = t.required;
    if (!PHONE.test(v.customerPhone)) errs.customerPhone = v.customerPhone ? t.badPhone : t.required;
    if (v.customerEmail && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v.customerEmail)) errs.customerEmail = t.badEmail;
    if (!v.date) errs.date = t.required;
    else if (v.date < today()) errs.date = t.pastDay;
    if (!/^(?:[01][0-9]|2[0-3]):[0-5][0-9]$/.test(v.time)) errs.time = t.badTime;
    const party = Number(v.partySize);
    if (!Number.isInteger(party) || party < 1 || party > 50) errs.partySize = t.badParty;
    setErrors(errs);
    setFormError('');
    if (Object.keys(errs).length) return;
    try {
      const created = await call(
        api.POST('/t/{slug}/reservations', {
          params: { path: { slug } },
          body: {
            customerName: v.customerName.trim(),
            customerPhone: v.customerPhone.trim(),
            date: v.date,
            time: v.time,
            partySize: party,
            ...(v.customerEmail ? { customerEmail: v.customerEmail.trim() } : {}),
            ...(v.tableId ? { tableId: v.tableId } : {}),
            ...(v.durationMinutes ? { durationMinutes: Number(v.durationMinutes) } : {}),
            ...(v.notes.trim() ? { notes: v.notes.trim() } : {}),
          },
        }),
      );
      onSaved(created);
    } catch (err) {
      const fields: Partial<Record<Fields, string>> = {};
      for (const k of Object.keys(v) as Fields[]) {
        const m = apiField(err, k);
        if (m) fields[k] = m;
      }
      setErrors(fields);
      setFormError(t.failed(errorText(err)));
    }
  }

  return (
    <form class="card" onSubmit={submit} noValidate>
      <h2>{t.newReservation}</h2>
      <div class="grid3">
        <Field label={t.customer} id={ids.customerName} error={errors.customerName}>
          {(p) => <input {...p} value={v.customerName} maxLength={120} autoComplete="off" onInput={set('customerName')} />}
        </Field>
        <Field label={t.phone} id={ids.customerPhone} error={errors.customerPhone}>
          {(p) => <input {...p} type="tel" value={v.customerPhone} onInput={set('customerPhone')} />}
        </Field>
        <Field label={t.email} id={ids.customerEmail} error={errors.customerEmail}>
          {(p) => <input {...p} type="email" value={v.customerEmail} onInput={set('customerEmail')} />}
        </Field>
        <Field label={t.day} id={ids.date} error={errors.date}>
          {(p) => <input {...p} type="date" min={today()} value={v.date} onInput={set('date')} />}
        </Field>
        <Field label={t.time} id={ids.time} error={errors.time}>
          {(p) => <input {...p} type="time" value={v.time} onInput={set('time')} />}
        </Field>
        <Field label={t.party} id={ids.partySize} error={errors.partySize}>
          {(p) => <input {...p} type="number" min={1} max={50} value={v.partySize} onInput={set('partySize')} />}
        </Field>
        <Field label={t.table} id={ids.tableId} error={errors.tableId}>
          {(p) => (
            <select {...p} value={v.tableId} onChange={set('tableId')}>
              <option value="">{t.noTable}</option>
              {tables.map((x) => (
                <option key={x._id} value={x._id}>
                  {t.tableN(x.number)} ({x.capacity})
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label={t.duration} id={ids.durationMinutes} error={errors.durationMinutes}>
          {(p) => <input {...p} type="number" min={15} step={15} value={v.durationMinutes} onInput={set('durationMinutes')} />}
        </Field>
      </div>
      <Field label={t.notes} id={ids.notes} error={errors.notes}>
        {(p) => <textarea {...p} rows={2} maxLength={1000} value={v.notes} onInput={set('notes')} />}
      </Field>
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
