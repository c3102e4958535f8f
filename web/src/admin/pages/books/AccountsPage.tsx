/** The chart of accounts: system and tenant accounts by code (search, paged), a new tenant account, deactivation. */
import { useState } from 'preact/hooks';
import { ApiError } from '../../../shared/api.js';
import { api, call } from '../../api/client.js';
import type { PageProps } from '../../types.js';
import { Field, fieldId } from '../../ui/Field.js';
import { Pager } from '../../ui/Pager.js';
import { errorText, Loading, useLoad } from './common.js';
import { s } from './strings.js';

const LIMIT = 50;
const NATURES = ['ativo', 'passivo', 'patrimonio_liquido', 'receita', 'custo', 'despesa'] as const;
type Nature = (typeof NATURES)[number];
const debitNatures: readonly string[] = ['ativo', 'custo', 'despesa'];
const ids = { q: fieldId('q'), parent: fieldId('parent'), code: fieldId('code'), name: fieldId('name'), nature: fieldId('nature'), type: fieldId('type'), nb: fieldId('nb') };
const CODE = /^\d{1,6}(\.\d{1,6}){0,7}$/;

export default function AccountsPage({ slug }: PageProps) {
  const chart = useLoad(() => call(api.GET('/t/{slug}/accounting/chart', { params: { path: { slug } } })), [slug]);
  const [q, setQ] = useState('');
  const [page, setPage] = useState(1);
  const [form, setForm] = useState({ parent: '', code: '', name: '', nature: 'despesa' as Nature, type: 'analitica' as 'analitica' | 'sintetica', normalBalance: 'debit' as 'debit' | 'credit' });
  const [errors, setErrors] = useState<Record<string, string | undefined>>({});
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);

  const all = chart.data ?? [];
  const parents = all.filter((a) => a.active && a.type === 'sintetica');
  const needle = q.trim().toLowerCase();
  const shown = needle ? all.filter((a) => a.code.startsWith(needle) || a.name.toLowerCase().includes(needle)) : all;
  const pageRows = shown.slice((page - 1) * LIMIT, page * LIMIT);

  function pickParent(id: string) {
    const p = all.find((a) => a._id === id);
    const nature = (p?.nature ?? form.nature) as Nature;
    setForm({ ...form, parent: id, nature, normalBalance: debitNatures.includes(nature) ? 'debit' : 'credit', code: p && !form.code ? `${p.code}.` : form.code });
  }

  async function submit(e: Event) {
    e.preventDefault();
    const parent = all.find((a) => a._id === form.parent);
    const found: Record<string, string | undefined> = {};
    if (!CODE.test(form.code)) found.code = s.accounts.codeInvalid;
    else if (parent && !form.code.startsWith(`${parent.code}.`)) found.code = s.accounts.codeUnderParent(`${parent.code}.`);
    if (!form.name.trim()) found.name = s.required;
    setErrors(found);
    if (Object.values(found).some(Boolean)) return;
    setBusy(true);
    setMessage(null);
    try {
      const out = await call(
        api.POST('/t/{slug}/accounting/chart', {
          params: { path: { slug } },
          body: {
            code: form.code,
            name: form.name.trim(),
            nature: form.nature,
            type: form.type,
            normalBalance: form.normalBalance,
            parent: form.parent || null,
          },
        }),
      );
      setMessage(s.accounts.saved(out.code));
      setForm({ ...form, code: '', name: '' });
      chart.reload();
    } catch (err) {
      if (err instanceof ApiError && (err.fields.length || err.code === 'code_taken'))
        setErrors({ code: err.fieldMessage('code') ?? (err.code === 'code_taken' ? errorText(err) : undefined), name: err.fieldMessage('name'), parent: err.fieldMessage('parent') });
      else setErrors({ form: errorText(err) });
    } finally {
      setBusy(false);
    }
  }

  async function deactivate(id: string, code: string) {
    if (!confirm(s.accounts.confirmDeactivate(code))) return;
    try {
      await call(api.DELETE('/t/{slug}/accounting/chart/{id}', { params: { path: { slug, id } } }));
      chart.reload();
    } catch (err) {
      setErrors({ form: errorText(err) });
    }
  }

  return (
    <>
      <h1>{s.accounts.title}</h1>
      <p>{s.accounts.intro}</p>
      {message && (
        <p class="notice" role="status">
          {message}
        </p>
      )}
      {errors.form && (
        <p class="form-error" role="alert">
          {errors.form}
        </p>
      )}
      <div class="toolbar">
        <Field label={s.accounts.filter} id={ids.q}>
          {(p) => (
            <input
              {...p}
              type="search"
              value={q}
              onInput={(e) => {
                setQ(e.currentTarget.value);
                setPage(1);
              }}
            />
          )}
        </Field>
      </div>
      <Loading loading={chart.loading && !chart.data} error={chart.error} />
      {chart.data && all.length === 0 && <p class="empty">{s.accounts.empty}</p>}
      {chart.data && all.length > 0 && shown.length === 0 && <p class="empty">{s.accounts.noMatch}</p>}
      {pageRows.length > 0 && (
        <div class="books-scroll" tabIndex={0} role="region" aria-label={s.scrollTable}>
          <table class="data">
            <thead>
              <tr>
                <th scope="col">{s.accounts.code}</th>
                <th scope="col">{s.accounts.name}</th>
                <th scope="col">{s.accounts.nature}</th>
                <th scope="col">{s.accounts.type}</th>
                <th scope="col">{s.actions}</th>
              </tr>
            </thead>
            <tbody>
              {pageRows.map((a) => (
                <tr key={a._id}>
                  <th scope="row">{a.code}</th>
                  <td>
                    {a.name}
                    {!a.active && ` (${s.accounts.inactive})`}
                    {a.tenant === null && <span class="hint"> · {s.accounts.system}</span>}
                  </td>
                  <td>{s.natures[a.nature] ?? a.nature}</td>
                  <td>{s.accounts.types[a.type]}</td>
                  <td>
                    {a.tenant !== null && a.active && (
                      <button type="button" class="btn" onClick={() => deactivate(a._id, a.code)}>
                        {s.accounts.deactivate}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={page} total={shown.length} limit={LIMIT} onPage={setPage} />
      <form class="card" onSubmit={submit} noValidate aria-labelledby="new-account">
        <h2 id="new-account">{s.accounts.add}</h2>
        <div class="books-form">
          <Field label={s.accounts.parent} id={ids.parent} error={errors.parent}>
            {(p) => (
              <select {...p} value={form.parent} onChange={(e) => pickParent(e.currentTarget.value)}>
                <option value="">{s.accounts.noParent}</option>
                {parents.map((a) => (
                  <option key={a._id} value={a._id}>
                    {a.code} {a.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label={s.accounts.code} id={ids.code} error={errors.code}>
            {(p) => <input {...p} value={form.code} inputMode="decimal" maxLength={60} onInput={(e) => setForm({ ...form, code: e.currentTarget.value.trim() })} required />}
          </Field>
          <Field label={s.accounts.name} id={ids.name} error={errors.name}>
            {(p) => <input {...p} value={form.name} maxLength={120} onInput={(e) => setForm({ ...form, name: e.currentTarget.value })} required />}
          </Field>
          <Field label={s.accounts.nature} id={ids.nature}>
            {(p) => (
              <select
                {...p}
                value={form.nature}
                disabled={!!form.parent}
                onChange={(e) => {
                  const nature = e.currentTarget.value as Nature;
                  setForm({ ...form, nature, normalBalance: debitNatures.includes(nature) ? 'debit' : 'credit' });
                }}
              >
                {NATURES.map((n) => (
                  <option key={n} value={n}>
                    {s.natures[n]}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label={s.accounts.type} id={ids.type}>
            {(p) => (
              <select {...p} value={form.type} onChange={(e) => setForm({ ...form, type: e.currentTarget.value as 'analitica' | 'sintetica' })}>
                <option value="analitica">{s.accounts.types.analitica}</option>
                <option value="sintetica">{s.accounts.types.sintetica}</option>
              </select>
            )}
          </Field>
          <Field label={s.accounts.normalBalance} id={ids.nb}>
            {(p) => (
              <select {...p} value={form.normalBalance} onChange={(e) => setForm({ ...form, normalBalance: e.currentTarget.value as 'debit' | 'credit' })}>
                <option value="debit">{s.accounts.balances.debit}</option>
                <option value="credit">{s.accounts.balances.credit}</option>
              </select>
            )}
          </Field>
          <button type="submit" class="btn primary" disabled={busy}>
            {s.accounts.save}
          </button>
        </div>
      </form>
    </>
  );
}
