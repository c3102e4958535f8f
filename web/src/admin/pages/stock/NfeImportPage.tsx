/**
 * NF-e import: upload the supplier's XML (progress shown), the dry-run review line by line (matched item,
 * quantities and costs in the item's unit; the user may point a line at another item or skip it, sent as
 * `mappings`), then confirm: the same file and mappings without dryRun write the entries.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../../../shared/api.js';
import { api } from '../../api/client.js';
import { callAll } from '../../ui/list-page.js';
import type { components } from '../../api/schema.js';
import type { PageProps } from '../../types.js';
import { Field, fieldId } from '../../ui/Field.js';
import { formatMoney } from '../../ui/format.js';
import { Link } from '../../ui/Link.js';
import { errorText, formatQty, parseDecimal, upload } from './lib.js';
import { s } from './strings.js';
import './stock.css';

type Item = components['schemas']['InventoryItem'];
type Result = {
  success: boolean;
  dryRun: boolean;
  nfeNumber: string;
  nfeKey: string;
  emitter: string;
  emitterCnpj: string;
  total: number;
  totalItems: number;
  created: number;
  updated: number;
  movements: number;
  skipped: number;
  errors: { line: number; code: string; message: string }[];
  lines: {
    line: number;
    supplierCode: string;
    description: string;
    ean: string | null;
    quantity: number;
    unit: string;
    unitPrice: number;
    action: 'match' | 'create' | 'skip' | 'review';
    matchedBy: string | null;
    item: { _id: string | null; name: string; sku: string; unit: string } | null;
    stockQuantity: number | null;
    unitCost: number | null;
    previousCost: number | null;
    reason: string;
  }[];
};
/** The person's choice for a supplier code: '' keeps the proposal, 'skip', or an item id (with a factor). */
type Choice = { target: string; factor: string };

const MAX_BYTES = 2 * 1024 * 1024;
const ids = { file: fieldId('nfe-file') };

export default function NfeImportPage({ slug }: PageProps) {
  const [file, setFile] = useState<File | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [review, setReview] = useState<Result | null>(null);
  const [done, setDone] = useState<Result | null>(null);
  const [choices, setChoices] = useState<Record<string, Choice>>({});
  const [sent, setSent] = useState<string>('[]');
  const [items, setItems] = useState<Item[]>([]);

  useEffect(() => {
    callAll((page) => api.GET('/t/{slug}/inventory', { params: { path: { slug }, query: { page } } }))
      .then((list) => setItems(list.sort((a, b) => a.name.localeCompare(b.name, 'pt-BR'))))
      .catch(() => setItems([]));
  }, [slug]);

  const mappings = () => {
    const out: ({ supplierCode: string; skip: true } | { supplierCode: string; itemId: string; factor?: number })[] = [];
    for (const [code, c] of Object.entries(choices)) {
      if (c.target === 'skip') out.push({ supplierCode: code, skip: true });
      else if (c.target) {
        const factor = parseDecimal(c.factor);
        out.push(factor && factor > 0 ? { supplierCode: code, itemId: c.target, factor } : { supplierCode: code, itemId: c.target });
      }
    }
    return out;
  };

  function check(f: File | null): string | null {
    if (!f) return s.chooseFile;
    if (!/\.xml$/i.test(f.name) && !/xml/.test(f.type)) return s.notXml;
    if (f.size > MAX_BYTES) return s.tooBig;
    return null;
  }

  async function send(dryRun: boolean) {
    const problem = check(file);
    setFileError(problem);
    if (problem || !file) return;
    const maps = JSON.stringify(mappings());
    const form = new FormData();
    if (maps !== '[]') form.append('mappings', maps);
    form.append('file', file, file.name);
    setBusy(true);
    setError(null);
    setProgress(0);
    try {
      const { body } = await upload<Result>(`/t/${encodeURIComponent(slug)}/inventory/import-nfs${dryRun ? '?dryRun=true' : ''}`, form, setProgress);
      if (dryRun) {
        setReview(body);
        setSent(maps);
      } else {
        setDone(body);
        setReview(null);
      }
    } catch (err) {
      if (err instanceof ApiError && err.fieldMessage('file')) {
        setFileError(err.fieldMessage('file')!);
        if (dryRun) setReview(null);
      } else setError(err instanceof ApiError && err.fieldMessage('mappings') ? err.fieldMessage('mappings')! : errorText(err, s.loadFailed));
    } finally {
      setBusy(false);
      setProgress(null);
    }
  }

  function reset() {
    setFile(null);
    setReview(null);
    setDone(null);
    setChoices({});
    setSent('[]');
    setError(null);
  }

  const choose = (code: string, patch: Partial<Choice>) => setChoices((c) => ({ ...c, [code]: { ...(c[code] ?? { target: '', factor: '' }), ...patch } }));
  const dirty = review !== null && JSON.stringify(mappings()) !== sent;
  const toReview = review?.lines.filter((l) => l.action === 'review').length ?? 0;

  return (
    <section class="stock-page">
      <h1>{s.importTitle}</h1>
      {done ? (
        <div class="card" data-testid="nfe-result">
          <h2>{s.importedTitle}</h2>
          <p>
            {s.nfeNumber} {done.nfeNumber} · {done.emitter} · {formatMoney(done.total)}
          </p>
          <p class="notice" role="status">
            {s.importedSummary(done.created, done.updated, done.movements, done.skipped)}
          </p>
          <div class="toolbar">
            <Link href={`/admin/t/${slug}/stock`} class="btn primary">
              {s.seeItems}
            </Link>
            <button type="button" class="btn" onClick={reset}>
              {s.startOver}
            </button>
          </div>
        </div>
      ) : (
        <>
          <p>{s.importIntro}</p>
          <form
            class="card stock-form"
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              void send(true);
            }}
          >
            <Field id={ids.file} label={s.xmlFile} error={fileError}>
              {(p) => (
                <input
                  {...p}
                  type="file"
                  accept=".xml,text/xml,application/xml"
                  onChange={(e) => {
                    const f = e.currentTarget.files?.[0] ?? null;
                    setFile(f);
                    setFileError(f ? check(f) : null);
                    setReview(null);
                    setChoices({});
                    setSent('[]');
                  }}
                />
              )}
            </Field>
            {progress !== null && (
              <div class="upload-progress">
                <progress max={100} value={Math.round(progress * 100)} aria-label={s.progress} />
                <span>{Math.round(progress * 100)}%</span>
              </div>
            )}
            {error && (
              <p class="form-error" role="alert">
                {error}
              </p>
            )}
            <button type="submit" class="btn primary" disabled={busy} data-testid="nfe-review">
              {busy ? s.uploading : s.review}
            </button>
          </form>
        </>
      )}

      {review && (
        <section aria-labelledby="nfe-review-title" data-testid="nfe-review-screen">
          <h2 id="nfe-review-title">{s.reviewTitle}</h2>
          <dl class="nfe-head card">
            <div>
              <dt>{s.emitter}</dt>
              <dd>
                {review.emitter} ({review.emitterCnpj})
              </dd>
            </div>
            <div>
              <dt>{s.nfeNumber}</dt>
              <dd>{review.nfeNumber}</dd>
            </div>
            <div>
              <dt>{s.totalNfe}</dt>
              <dd>{formatMoney(review.total)}</dd>
            </div>
            <div class="nfe-key">
              <dt>{s.nfeKey}</dt>
              <dd>{review.nfeKey}</dd>
            </div>
          </dl>
          <div class="table-scroll">
            <table class="data nfe-lines">
              <thead>
                <tr>
                  <th scope="col">{s.lineNo}</th>
                  <th scope="col">{s.invoiceItem}</th>
                  <th scope="col" class="num">
                    {s.invoiceQty}
                  </th>
                  <th scope="col" class="num">
                    {s.unitPrice}
                  </th>
                  <th scope="col">{s.proposal}</th>
                  <th scope="col" class="num">
                    {s.stockQty}
                  </th>
                  <th scope="col" class="num">
                    {s.newCost}
                  </th>
                  <th scope="col">{s.stockItem}</th>
                </tr>
              </thead>
              <tbody>
                {review.lines.map((l) => {
                  const c = choices[l.supplierCode] ?? { target: '', factor: '' };
                  const selId = `nfe-line-${l.line}`;
                  return (
                    <tr key={l.line} class={`nfe-${l.action}`} data-testid={`nfe-line-${l.line}`}>
                      <td>{l.line}</td>
                      <td>
                        <strong>{l.description}</strong>
                        <div class="hint">
                          {s.sku} {l.supplierCode}
                          {l.ean ? ` · EAN ${l.ean}` : ''}
                        </div>
                      </td>
                      <td class="num">
                        {formatQty(l.quantity)} {l.unit}
                      </td>
                      <td class="num">{formatMoney(l.unitPrice)}</td>
                      <td>
                        <span class={`badge badge-${l.action}`}>{s.actions_[l.action]}</span>
                        {l.item && (
                          <div>
                            {l.item.name}
                            {l.matchedBy ? <span class="hint"> ({s.matchedBy[l.matchedBy] ?? l.matchedBy})</span> : null}
                          </div>
                        )}
                        {l.action === 'review' && <div class="hint">{l.reason}</div>}
                      </td>
                      <td class="num">{l.stockQuantity !== null && l.item ? `${formatQty(l.stockQuantity)} ${s.units[l.item.unit] ?? l.item.unit}` : '—'}</td>
                      <td class="num">
                        {l.unitCost !== null ? formatMoney(l.unitCost) : '—'}
                        {l.previousCost !== null && <div class="hint">{`${s.prevCost}: ${formatMoney(l.previousCost)}`}</div>}
                      </td>
                      <td>
                        <label class="sr-only" for={selId}>
                          {`${s.stockItem}: ${l.description}`}
                        </label>
                        <select id={selId} value={c.target} onChange={(e) => choose(l.supplierCode, { target: e.currentTarget.value })}>
                          <option value="">{s.keepProposal}</option>
                          <option value="skip">{s.skipLine}</option>
                          {items.map((i) => (
                            <option key={i._id} value={i._id}>
                              {i.name} ({s.units[i.unit] ?? i.unit})
                            </option>
                          ))}
                        </select>
                        {c.target && c.target !== 'skip' && (
                          <div class="nfe-factor">
                            <label for={`${selId}-factor`}>{s.factor}</label>
                            <input id={`${selId}-factor`} inputMode="decimal" value={c.factor} onInput={(e) => choose(l.supplierCode, { factor: e.currentTarget.value })} />
                          </div>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          {review.errors.length > 0 && (
            <details class="card nfe-problems">
              <summary>
                {s.problems} ({review.errors.length})
              </summary>
              <ul>
                {review.errors.map((p, i) => (
                  <li key={i}>
                    {s.lineNo} {p.line}: {p.message}
                  </li>
                ))}
              </ul>
            </details>
          )}
          <p class="notice" role="status">
            {dirty ? s.changed : toReview > 0 ? s.needsReview(toReview) : s.ready}
          </p>
          <div class="toolbar">
            <button type="button" class="btn" disabled={busy || !dirty} onClick={() => void send(true)}>
              {s.reReview}
            </button>
            <button type="button" class="btn primary" disabled={busy || dirty || toReview > 0} onClick={() => void send(false)} data-testid="nfe-confirm">
              {s.confirm}
            </button>
            <button type="button" class="btn" onClick={reset}>
              {s.startOver}
            </button>
          </div>
        </section>
      )}
    </section>
  );
}
