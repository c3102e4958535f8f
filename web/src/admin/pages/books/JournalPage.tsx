/** The journal: entries paged (status filter), a manual entry (balanced lines, checked before sending), posting drafts, reversal. */
import { useState } from 'preact/hooks';
import { ApiError } from '../../../shared/api.js';
import { api, call } from '../../api/client.js';
import type { PageProps } from '../../types.js';
import { Field, fieldId } from '../../ui/Field.js';
import { formatDay, today } from '../../ui/format.js';
import { Pager } from '../../ui/Pager.js';
import { errorText, Loading, money, Status, useLoad } from './common.js';
import { s } from './strings.js';

const LIMIT = 20;
const ids = { status: fieldId('status'), date: fieldId('date'), desc: fieldId('desc'), reason: fieldId('reason') };
type Entry = NonNullable<Awaited<ReturnType<typeof list>>>['data'][number];
const list = (slug: string, page: number, status: string) =>
  call(api.GET('/t/{slug}/accounting/journal', { params: { path: { slug }, query: { page, limit: LIMIT, ...(status ? { status: status as 'draft' | 'posted' } : {}) } } }));

interface LineDraft {
  accountId: string;
  debit: string;
  credit: string;
  memo: string;
}
const blank = (): LineDraft => ({ accountId: '', debit: '', credit: '', memo: '' });
/** "1.234,56" or "1234.56" -> cents; NaN when not a number. */
function cents(v: string): number {
  const t = v.trim();
  if (!t) return 0;
  const n = Number(t.includes(',') ? t.replace(/\./g, '').replace(',', '.') : t);
  return Number.isFinite(n) && n >= 0 ? Math.round(n * 100) : NaN;
}

function NewEntry({ slug, onDone }: { slug: string; onDone: (msg: string) => void }) {
  const chart = useLoad(() => call(api.GET('/t/{slug}/accounting/chart', { params: { path: { slug } } })), [slug]);
  const accounts = (chart.data ?? []).filter((a) => a.active && a.type === 'analitica');
  const [date, setDate] = useState(today());
  const [description, setDescription] = useState('');
  const [lines, setLines] = useState<LineDraft[]>([blank(), blank()]);
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});
  const [busy, setBusy] = useState(false);
  const set = (i: number, patch: Partial<LineDraft>) => setLines(lines.map((l, j) => (j === i ? { ...l, ...patch } : l)));
  const debit = lines.reduce((a, l) => a + (cents(l.debit) || 0), 0);
  const credit = lines.reduce((a, l) => a + (cents(l.credit) || 0), 0);

  function check() {
    const e: Record<string, string | undefined> = {};
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) e.competenceDate = s.journal.dateRequired;
    if (!description.trim()) e.description = s.journal.descriptionRequired;
    const used = lines.filter((l) => l.accountId || l.debit || l.credit);
    if (used.length < 2) e.lines = s.journal.minLines;
    else if (used.some((l) => !l.accountId || Number.isNaN(cents(l.debit)) || Number.isNaN(cents(l.credit)) || (cents(l.debit) > 0) === (cents(l.credit) > 0)))
      e.lines = s.journal.lineInvalid;
    else if (debit !== credit) e.lines = s.journal.unbalanced;
    return e;
  }

  async function submit(e: Event, post: boolean) {
    e.preventDefault();
    const found = check();
    setErrors(found);
    if (Object.values(found).some(Boolean)) return;
    setBusy(true);
    try {
      const body = {
        competenceDate: date,
        description: description.trim(),
        lines: lines
          .filter((l) => l.accountId)
          .map((l) => ({ accountId: l.accountId, debit: cents(l.debit) / 100, credit: cents(l.credit) / 100, memo: l.memo.trim() || null })),
      };
      let entry = await call(api.POST('/t/{slug}/accounting/journal', { params: { path: { slug } }, body }));
      if (post) entry = await call(api.POST('/t/{slug}/accounting/journal/{id}/post', { params: { path: { slug, id: entry._id } } }));
      setDescription('');
      setLines([blank(), blank()]);
      onDone(post ? s.journal.posted(entry.entryNumber) : s.journal.drafted(entry.entryNumber));
    } catch (err) {
      if (err instanceof ApiError && err.fields.length) {
        setErrors({ competenceDate: err.fieldMessage('competenceDate'), description: err.fieldMessage('description'), lines: err.fields.find((f) => f.field.includes('lines'))?.message });
      } else setErrors({ form: errorText(err) });
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="card" onSubmit={(e) => submit(e, true)} noValidate aria-labelledby="new-entry">
      <h2 id="new-entry">{s.journal.newEntry}</h2>
      <div class="books-form">
        <Field label={s.date} id={ids.date} error={errors.competenceDate}>
          {(p) => <input {...p} type="date" value={date} onInput={(e) => setDate(e.currentTarget.value)} required />}
        </Field>
        <Field label={s.description} id={ids.desc} error={errors.description}>
          {(p) => <input {...p} value={description} maxLength={500} onInput={(e) => setDescription(e.currentTarget.value)} required />}
        </Field>
      </div>
      <fieldset>
        <legend>{s.journal.lines}</legend>
        <div class="books-scroll" tabIndex={0} role="region" aria-label={s.scrollTable}>
          <table class="books-lines">
            <thead>
              <tr>
                <th scope="col">{s.account}</th>
                <th scope="col">{s.debit}</th>
                <th scope="col">{s.credit}</th>
                <th scope="col">{s.journal.memo}</th>
                <th scope="col">
                  <span class="sr-only">{s.actions}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {lines.map((l, i) => (
                <tr key={i}>
                  <td>
                    <select aria-label={`${s.account} ${i + 1}`} value={l.accountId} onChange={(e) => set(i, { accountId: e.currentTarget.value })}>
                      <option value="">{s.journal.chooseAccount}</option>
                      {accounts.map((a) => (
                        <option key={a._id} value={a._id}>
                          {a.code} {a.name}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td>
                    <input aria-label={`${s.debit} ${i + 1}`} inputMode="decimal" value={l.debit} onInput={(e) => set(i, { debit: e.currentTarget.value })} />
                  </td>
                  <td>
                    <input aria-label={`${s.credit} ${i + 1}`} inputMode="decimal" value={l.credit} onInput={(e) => set(i, { credit: e.currentTarget.value })} />
                  </td>
                  <td>
                    <input aria-label={`${s.journal.memo} ${i + 1}`} value={l.memo} maxLength={500} onInput={(e) => set(i, { memo: e.currentTarget.value })} />
                  </td>
                  <td>
                    <button type="button" class="btn" aria-label={s.journal.removeLine(i + 1)} disabled={lines.length <= 2} onClick={() => setLines(lines.filter((_, j) => j !== i))}>
                      ×
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p class="books-totals" aria-live="polite">
          {s.journal.totals(money(debit / 100), money(credit / 100))}
        </p>
        {errors.lines && (
          <p class="field-error" role="alert">
            {errors.lines}
          </p>
        )}
        <button type="button" class="btn" onClick={() => setLines([...lines, blank()])}>
          {s.journal.addLine}
        </button>
      </fieldset>
      {errors.form && (
        <p class="form-error" role="alert">
          {errors.form}
        </p>
      )}
      <div class="books-actions">
        <button type="submit" class="btn primary" disabled={busy}>
          {s.journal.post}
        </button>
        <button type="button" class="btn" disabled={busy} onClick={(e) => submit(e, false)}>
          {s.journal.saveDraft}
        </button>
      </div>
    </form>
  );
}

function Reverse({ slug, entry, onDone }: { slug: string; entry: Entry; onDone: (msg: string | null) => void }) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  async function submit(e: Event) {
    e.preventDefault();
    if (!reason.trim()) return setError(s.journal.reasonRequired);
    setBusy(true);
    try {
      const out = await call(api.POST('/t/{slug}/accounting/journal/{id}/reverse', { params: { path: { slug, id: entry._id } }, body: { reason: reason.trim() } }));
      onDone(s.journal.reversed(out.entryNumber));
    } catch (err) {
      setError(err instanceof ApiError ? (err.fieldMessage('reason') ?? errorText(err)) : errorText(err));
    } finally {
      setBusy(false);
    }
  }
  return (
    <form class="books-form" onSubmit={submit} noValidate>
      <Field label={s.journal.reason} id={ids.reason} error={error}>
        {(p) => <input {...p} value={reason} maxLength={500} onInput={(e) => setReason(e.currentTarget.value)} required />}
      </Field>
      <button type="submit" class="btn danger" disabled={busy}>
        {s.journal.confirmReverse}
      </button>
      <button type="button" class="btn" onClick={() => onDone(null)}>
        {s.cancel}
      </button>
    </form>
  );
}

export default function JournalPage({ slug }: PageProps) {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState('');
  const entries = useLoad(() => list(slug, page, status), [slug, page, status]);
  const [open, setOpen] = useState<string | null>(null);
  const [reversing, setReversing] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const done = (msg: string | null) => {
    setReversing(null);
    if (msg) {
      setMessage(msg);
      entries.reload();
    }
  };
  async function postDraft(entry: Entry) {
    setError(null);
    try {
      const out = await call(api.POST('/t/{slug}/accounting/journal/{id}/post', { params: { path: { slug, id: entry._id } } }));
      done(s.journal.posted(out.entryNumber));
    } catch (err) {
      setError(errorText(err));
    }
  }
  const data = entries.data;
  return (
    <>
      <h1>{s.journal.title}</h1>
      <p>{s.journal.intro}</p>
      {message && (
        <p class="notice" role="status">
          {message}
        </p>
      )}
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      <div class="toolbar">
        <Field label={s.journal.filter} id={ids.status}>
          {(p) => (
            <select
              {...p}
              value={status}
              onChange={(e) => {
                setStatus(e.currentTarget.value);
                setPage(1);
              }}
            >
              <option value="">{s.journal.all}</option>
              <option value="posted">{s.status.posted}</option>
              <option value="draft">{s.status.draft}</option>
            </select>
          )}
        </Field>
      </div>
      <Loading loading={entries.loading && !data} error={entries.error} />
      {data && data.data.length === 0 && <p class="empty">{s.journal.empty}</p>}
      {data && data.data.length > 0 && (
        <div class="books-scroll" tabIndex={0} role="region" aria-label={s.scrollTable}>
          <table class="data" data-testid="journal">
            <thead>
              <tr>
                <th scope="col">{s.journal.number}</th>
                <th scope="col">{s.date}</th>
                <th scope="col">{s.description}</th>
                <th scope="col" class="num">{s.amount}</th>
                <th scope="col">{s.state}</th>
                <th scope="col">{s.actions}</th>
              </tr>
            </thead>
            <tbody>
              {data.data.map((e) => [
                <tr key={e._id}>
                  <th scope="row">{e.entryNumber}</th>
                  <td>{formatDay(e.competenceDate)}</td>
                  <td>
                    {e.description}
                    {e.source && ` (${s.journal.automatic})`}
                    {e.reversedBy && ` · ${s.journal.reversedBy}`}
                    {e.reverses && ` · ${s.journal.reversal}`}
                  </td>
                  <td class="num">{money(e.totalAmount)}</td>
                  <td>
                    <Status value={e.status} />
                  </td>
                  <td class="books-actions">
                    <button type="button" class="btn" aria-expanded={open === e._id} onClick={() => setOpen(open === e._id ? null : e._id)}>
                      {s.journal.lines}
                    </button>
                    {e.status === 'draft' && (
                      <button type="button" class="btn" onClick={() => postDraft(e)}>
                        {s.journal.postDraft}
                      </button>
                    )}
                    {e.status === 'posted' && !e.reversedBy && !e.reverses && (
                      <button type="button" class="btn" onClick={() => setReversing(e._id)}>
                        {s.journal.reverse}
                      </button>
                    )}
                  </td>
                </tr>,
                reversing === e._id && (
                  <tr key={`${e._id}-rev`}>
                    <td colSpan={6}>
                      <Reverse slug={slug} entry={e} onDone={done} />
                    </td>
                  </tr>
                ),
                open === e._id && (
                  <tr key={`${e._id}-lines`}>
                    <td colSpan={6}>
                      <table class="data">
                        <caption class="sr-only">{s.journal.details(e.entryNumber)}</caption>
                        <tbody>
                          {e.lines.map((l, i) => (
                            <tr key={i}>
                              <td>
                                {l.accountCode} {l.accountName}
                                {l.memo && ` — ${l.memo}`}
                              </td>
                              <td class="num">{l.debit ? money(l.debit) : ''}</td>
                              <td class="num">{l.credit ? money(l.credit) : ''}</td>
                            </tr>
                          ))}
                        </tbody>
                      </table>
                    </td>
                  </tr>
                ),
              ])}
            </tbody>
          </table>
        </div>
      )}
      {data && <Pager page={page} total={data.total} limit={LIMIT} onPage={setPage} />}
      <NewEntry
        slug={slug}
        onDone={(m) => {
          setMessage(m);
          entries.reload();
        }}
      />
    </>
  );
}
