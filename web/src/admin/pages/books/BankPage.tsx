/** Bank reconciliation: a bank account's statement (import OFX/CSV, status filter, paged), auto-match, match, ignore, undo. */
import { useState } from 'preact/hooks';
import { ApiError } from '../../../shared/api.js';
import { api, call } from '../../api/client.js';
import { session } from '../../session.js';
import type { PageProps } from '../../types.js';
import { Field, fieldId } from '../../ui/Field.js';
import { formatDay } from '../../ui/format.js';
import { callPage } from '../../ui/list-page.js';
import { Pager } from '../../ui/Pager.js';
import { errorText, Loading, money, Status, useLoad } from './common.js';
import { s } from './strings.js';

const LIMIT = 25;
const MAX_BYTES = 2 * 1024 * 1024;
const ids = { account: fieldId('bank'), file: fieldId('file'), status: fieldId('lstatus'), entry: fieldId('entry') };
type LineStatus = 'unmatched' | 'matched' | 'ignored';
interface Candidate {
  _id: string;
  label: string;
}

/** Posted entries with a line of `amount` on the bank's ledger account: the candidates for a statement line. */
async function candidates(slug: string, ledgerAccountId: string, amount: number): Promise<Candidate[]> {
  const page = await call(api.GET('/t/{slug}/accounting/journal', { params: { path: { slug }, query: { status: 'posted', limit: 100 } } }));
  const cents = Math.round(Math.abs(amount) * 100);
  return page.data
    .filter((e) => e.lines.some((l) => l.accountId === ledgerAccountId && Math.round((amount > 0 ? l.debit : l.credit) * 100) === cents))
    .map((e) => ({ _id: e._id, label: `${e.entryNumber} · ${formatDay(e.competenceDate)} · ${e.description}` }));
}

export default function BankPage({ slug }: PageProps) {
  const accounts = useLoad(() => call(api.GET('/t/{slug}/accounting/bank', { params: { path: { slug } } })), [slug]);
  const [picked, setPicked] = useState('');
  const account = (accounts.data ?? []).find((a) => a._id === picked) ?? accounts.data?.[0] ?? null;
  const [status, setStatus] = useState<'' | LineStatus>('unmatched');
  const [page, setPage] = useState(1);
  const lines = useLoad(
    () =>
      account
        ? callPage(
            api.GET('/t/{slug}/accounting/bank/{id}/statement', {
              params: { path: { slug, id: account._id }, query: { ...(status ? { status } : {}), page, limit: LIMIT } },
            }),
          )
        : Promise.resolve(null),
    [slug, account?._id, status, page],
  );
  const [file, setFile] = useState<File | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [matching, setMatching] = useState<{ lineId: string; options: Candidate[]; entryId: string; error?: string } | null>(null);

  const refresh = (msg: string) => {
    setMessage(msg);
    lines.reload();
    accounts.reload();
  };
  async function run(work: () => Promise<void>) {
    setBusy(true);
    setError(null);
    setMessage(null);
    try {
      await work();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  function upload(e: Event) {
    e.preventDefault();
    if (!account) return;
    if (!file) return setFileError(s.bank.fileRequired);
    if (file.size > MAX_BYTES) return setFileError(s.bank.fileTooBig);
    setFileError(null);
    void run(async () => {
      const form = new FormData();
      form.append('file', file, file.name);
      const res = await fetch(`/t/${slug}/accounting/bank/${account._id}/import`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await session.accessToken()}` },
        body: form,
      });
      const body = await res.json().catch(() => ({}));
      if (!res.ok) {
        const err = new ApiError(res.status, body.code ?? 'http_error', body.message ?? res.statusText, body.details ?? []);
        setFileError(err.fieldMessage('file') ?? errorText(err));
        return;
      }
      refresh(s.bank.imported(body.linesAdded, body.duplicates));
    });
  }

  const autoMatch = () =>
    run(async () => {
      const out = await call(api.POST('/t/{slug}/accounting/bank/{id}/auto-match', { params: { path: { slug, id: account!._id } } }));
      refresh(s.bank.autoMatched(out.matched, out.unmatched));
    });
  const openMatch = (lineId: string, amount: number) =>
    run(async () => {
      const options = await candidates(slug, account!.ledgerAccount.id, amount);
      setMatching({ lineId, options, entryId: options[0]?._id ?? '' });
    });
  const act = (lineId: string, kind: 'ignore' | 'unmatch') =>
    run(async () => {
      const path = { slug, id: account!._id, lineId };
      if (kind === 'ignore') await call(api.POST('/t/{slug}/accounting/bank/{id}/statement/{lineId}/ignore', { params: { path }, body: {} }));
      else await call(api.POST('/t/{slug}/accounting/bank/{id}/statement/{lineId}/unmatch', { params: { path } }));
      refresh(kind === 'ignore' ? s.bank.lineIgnored : s.bank.lineUnmatched);
    });
  const pickEntry = (entryId: string) => matching && setMatching({ ...matching, entryId, error: undefined });
  function submitMatch(e: Event) {
    e.preventDefault();
    if (!matching) return;
    if (!matching.entryId) return setMatching({ ...matching, error: s.bank.chooseEntry });
    void run(async () => {
      try {
        await call(
          api.POST('/t/{slug}/accounting/bank/{id}/statement/{lineId}/match', {
            params: { path: { slug, id: account!._id, lineId: matching.lineId } },
            body: { entryId: matching.entryId },
          }),
        );
        setMatching(null);
        refresh(s.bank.lineMatched);
      } catch (err) {
        setMatching({ ...matching, error: err instanceof ApiError ? (err.fieldMessage('entryId') ?? errorText(err)) : errorText(err) });
      }
    });
  }

  // The API pages the statement (`page`, `limit`; the number of lines in X-Total-Count).
  const rows = lines.data?.rows ?? [];
  const total = lines.data?.total ?? 0;
  return (
    <>
      <h1>{s.bank.title}</h1>
      <p>{s.bank.intro}</p>
      <Loading loading={accounts.loading && !accounts.data} error={accounts.error} />
      {accounts.data && accounts.data.length === 0 && <p class="empty">{s.bank.noAccounts}</p>}
      {account && (
        <>
          <div class="card books-form">
            <Field label={s.bank.account} id={ids.account}>
              {(p) => (
                <select
                  {...p}
                  value={account._id}
                  onChange={(e) => {
                    setPicked(e.currentTarget.value);
                    setPage(1);
                  }}
                >
                  {accounts.data!.map((a) => (
                    <option key={a._id} value={a._id}>
                      {a.name} ({s.bank.unmatchedCount(a.unmatchedLines)})
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <button type="button" class="btn" disabled={busy} onClick={autoMatch}>
              {s.bank.autoMatch}
            </button>
          </div>
          <form class="card books-form" onSubmit={upload} noValidate aria-label={s.bank.import}>
            <Field label={s.bank.file} id={ids.file} error={fileError}>
              {(p) => <input {...p} type="file" accept=".ofx,.csv,.txt" onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} required />}
            </Field>
            <button type="submit" class="btn primary" disabled={busy}>
              {s.bank.import}
            </button>
          </form>
        </>
      )}
      {busy && <p aria-busy="true">{s.loading}</p>}
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
      {account && (
        <div class="toolbar">
          <Field label={s.bank.filter} id={ids.status}>
            {(p) => (
              <select
                {...p}
                value={status}
                onChange={(e) => {
                  setStatus(e.currentTarget.value as '' | LineStatus);
                  setPage(1);
                }}
              >
                <option value="">{s.journal.all}</option>
                <option value="unmatched">{s.status.unmatched}</option>
                <option value="matched">{s.status.matched}</option>
                <option value="ignored">{s.status.ignored}</option>
              </select>
            )}
          </Field>
        </div>
      )}
      <Loading loading={lines.loading && !lines.data && !!account} error={lines.error} />
      {lines.data && total === 0 && <p class="empty">{s.bank.empty}</p>}
      {rows.length > 0 && (
        <div class="books-scroll" tabIndex={0} role="region" aria-label={s.scrollTable}>
          <table class="data">
            <thead>
              <tr>
                <th scope="col">{s.date}</th>
                <th scope="col">{s.description}</th>
                <th scope="col" class="num">{s.amount}</th>
                <th scope="col">{s.state}</th>
                <th scope="col">{s.actions}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((l) => [
                <tr key={l._id}>
                  <td>{formatDay(l.date)}</td>
                  <th scope="row">
                    {l.description}
                    {l.matchedEntry && <span class="hint"> · {l.matchedEntry.entryNumber}</span>}
                  </th>
                  <td class="num">{money(l.amount)}</td>
                  <td>
                    <Status value={l.status} />
                  </td>
                  <td class="books-actions">
                    {l.status === 'unmatched' ? (
                      <>
                        <button type="button" class="btn" disabled={busy} onClick={() => openMatch(l._id, l.amount)}>
                          {s.bank.match}
                        </button>
                        <button type="button" class="btn" disabled={busy} onClick={() => act(l._id, 'ignore')}>
                          {s.bank.ignore}
                        </button>
                      </>
                    ) : (
                      <button type="button" class="btn" disabled={busy} onClick={() => act(l._id, 'unmatch')}>
                        {s.bank.unmatch}
                      </button>
                    )}
                  </td>
                </tr>,
                matching?.lineId === l._id && (
                  <tr key={`${l._id}-m`}>
                    <td colSpan={5}>
                      <form class="books-form" onSubmit={submitMatch} noValidate>
                        <Field label={s.bank.entry} id={ids.entry} error={matching.error ?? (matching.options.length ? null : s.bank.noCandidates)}>
                          {(p) => (
                            <select {...p} value={matching.entryId} onChange={(e) => pickEntry(e.currentTarget.value)}>
                              <option value="">{s.bank.chooseEntry}</option>
                              {matching.options.map((o) => (
                                <option key={o._id} value={o._id}>
                                  {o.label}
                                </option>
                              ))}
                            </select>
                          )}
                        </Field>
                        <button type="submit" class="btn primary" disabled={busy}>
                          {s.bank.match}
                        </button>
                        <button type="button" class="btn" onClick={() => setMatching(null)}>
                          {s.cancel}
                        </button>
                      </form>
                    </td>
                  </tr>
                ),
              ])}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={page} total={total} limit={LIMIT} onPage={setPage} />
    </>
  );
}
