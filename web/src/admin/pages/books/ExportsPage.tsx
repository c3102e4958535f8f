/**
 * Exports downloaded as files: the books (SPED ECD, ERP JSON layouts, CSV) of whole months, and the fiscal files of a
 * month (EFD ICMS/IPI, EFD-Contribuições, the ZIP of the authorised XML). Admin and accountant.
 */
import { useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import type { PageProps } from '../../types.js';
import { Field, fieldId } from '../../ui/Field.js';
import { download, errorText, firstDay, lastDay, monthBefore } from './common.js';
import { s } from './strings.js';

const FORMATS = ['sped', 'erp_c', 'erp_a', 'erp_b'] as const;
type Format = (typeof FORMATS)[number];
const FISCAL = ['efd', 'efd-contribuicoes', 'xml-batch'] as const;
type FiscalKind = (typeof FISCAL)[number];
const ids = { format: fieldId('format'), from: fieldId('from'), to: fieldId('to'), kind: fieldId('kind'), fmonth: fieldId('fmonth') };

export default function ExportsPage({ slug }: PageProps) {
  const [format, setFormat] = useState<Format>('sped');
  const [from, setFrom] = useState(monthBefore(1));
  const [to, setTo] = useState(monthBefore(1));
  const [errors, setErrors] = useState<{ from?: string; to?: string }>({});
  const [kind, setKind] = useState<FiscalKind>('efd');
  const [fmonth, setFmonth] = useState(monthBefore(1));
  const [fmonthError, setFmonthError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function run(work: () => Promise<string>) {
    setBusy(true);
    setError(null);
    setMessage(null);
    try {
      setMessage(s.exports.saved(await work()));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  }

  function submitBooks(e: Event) {
    e.preventDefault();
    const next: typeof errors = {};
    if (!/^\d{4}-\d{2}$/.test(from)) next.from = s.exports.monthRequired;
    if (!/^\d{4}-\d{2}$/.test(to)) next.to = s.exports.monthRequired;
    else if (to < from) next.to = s.exports.toBeforeFrom;
    else if (format === 'sped' && to.slice(0, 4) !== from.slice(0, 4)) next.to = s.exports.spedOneYear;
    setErrors(next);
    if (Object.keys(next).length) return;
    const q = new URLSearchParams({ format, start: firstDay(from), end: lastDay(to) });
    void run(() => download(`/t/${slug}/admin/accounting/export?${q}`, `livros-${from}-${to}.${format === 'sped' ? 'txt' : format === 'erp_c' ? 'csv' : 'json'}`));
  }

  function submitFiscal(e: Event) {
    e.preventDefault();
    if (!/^\d{4}-\d{2}$/.test(fmonth)) return setFmonthError(s.exports.monthRequired);
    setFmonthError(null);
    const query = { startDate: firstDay(fmonth), endDate: lastDay(fmonth) };
    void run(async () => {
      if (kind === 'xml-batch') return download(`/t/${slug}/accountant/export/xml-batch?${new URLSearchParams(query)}`, `xml-${fmonth}.zip`);
      const link =
        kind === 'efd'
          ? await call(api.GET('/t/{slug}/accountant/export/efd', { params: { path: { slug }, query } }))
          : await call(api.GET('/t/{slug}/accountant/export/efd-contribuicoes', { params: { path: { slug }, query } }));
      return download(link.url, `${kind}-${fmonth}.txt`, { auth: false });
    });
  }

  return (
    <>
      <h1>{s.exports.title}</h1>
      <p>{s.exports.intro}</p>
      <div class="books-grid">
        <form class="card" onSubmit={submitBooks} noValidate aria-labelledby="exp-books">
          <h2 id="exp-books">{s.exports.books}</h2>
          <Field label={s.exports.format} id={ids.format}>
            {(p) => (
              <select {...p} value={format} onChange={(e) => setFormat(e.currentTarget.value as Format)}>
                {FORMATS.map((f) => (
                  <option key={f} value={f}>
                    {s.exports.formats[f]}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label={s.exports.from} id={ids.from} error={errors.from}>
            {(p) => <input {...p} type="month" value={from} onInput={(e) => setFrom(e.currentTarget.value)} required />}
          </Field>
          <Field label={s.exports.to} id={ids.to} error={errors.to}>
            {(p) => <input {...p} type="month" value={to} onInput={(e) => setTo(e.currentTarget.value)} required />}
          </Field>
          <button type="submit" class="btn primary" disabled={busy} data-testid="export-books">
            {s.exports.download}
          </button>
        </form>
        <form class="card" onSubmit={submitFiscal} noValidate aria-labelledby="exp-fiscal">
          <h2 id="exp-fiscal">{s.exports.fiscal}</h2>
          <Field label={s.exports.file} id={ids.kind}>
            {(p) => (
              <select {...p} value={kind} onChange={(e) => setKind(e.currentTarget.value as FiscalKind)}>
                {FISCAL.map((f) => (
                  <option key={f} value={f}>
                    {s.exports.fiscalKinds[f]}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label={s.exports.month} id={ids.fmonth} error={fmonthError}>
            {(p) => <input {...p} type="month" value={fmonth} onInput={(e) => setFmonth(e.currentTarget.value)} required />}
          </Field>
          <button type="submit" class="btn primary" disabled={busy} data-testid="export-fiscal">
            {s.exports.download}
          </button>
        </form>
      </div>
      {busy && <p aria-busy="true">{s.exports.preparing}</p>}
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
    </>
  );
}
