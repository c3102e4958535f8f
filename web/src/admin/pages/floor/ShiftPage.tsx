/**
 * The cashier's shift at a PDV: open it with the opening float, sangria (cash out) and suprimento (cash
 * in), close it with the count per method and read the closing report. `floor/shift`.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../../../shared/api.js';
import { api, call } from '../../api/client.js';
import { session } from '../../session.js';
import type { PageProps } from '../../types.js';
import { formatDateTime, formatMoney } from '../../ui/format.js';
import { describe, loadPdvs, parseMoney, savedPdv, savePdv, type PdvChoice, type PdvWithShift, type ShiftReport } from './data.js';
import { strings as t } from './strings.js';
import './floor.css';

const COUNT_METHODS = ['cash', 'credit_card', 'debit_card', 'pix', 'voucher'] as const;
type Errors = Record<string, string | undefined>;

function MoneyField({ id, label, value, onInput, error }: { id: string; label: string; value: string; onInput: (v: string) => void; error?: string }) {
  return (
    <div class={`field${error ? ' field-invalid' : ''}`}>
      <label for={id}>{label}</label>
      <input
        id={id}
        inputMode="decimal"
        value={value}
        onInput={(e) => onInput(e.currentTarget.value)}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? `${id}-err` : undefined}
      />
      {error && (
        <p class="field-error" id={`${id}-err`} role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

export default function ShiftPage({ slug }: PageProps) {
  const [pdvs, setPdvs] = useState<PdvChoice[] | null>(null);
  const [pdvId, setPdvId] = useState(() => savedPdv(slug));
  const [info, setInfo] = useState<PdvWithShift | null>(null);
  const [shift, setShift] = useState<ShiftReport | null>(null);
  const [report, setReport] = useState<ShiftReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [errors, setErrors] = useState<Errors>({});
  const [float, setFloat] = useState('');
  const [kind, setKind] = useState<'withdrawal' | 'addition'>('withdrawal');
  const [mvAmount, setMvAmount] = useState('');
  const [mvReason, setMvReason] = useState('');
  const [counted, setCounted] = useState<Record<string, string>>({});
  const [notes, setNotes] = useState('');
  const [busy, setBusy] = useState(false);

  const pdv = pdvs?.find((p) => p._id === pdvId) ?? null;

  useEffect(() => {
    loadPdvs(slug)
      .then(({ pdvs: list }) => {
        setPdvs(list);
        if (!list.some((p) => p._id === pdvId) && list[0]) setPdvId(list[0]._id);
      })
      .catch((err) => setError(describe(err)));
  }, [slug]);

  async function load() {
    if (!pdv?.branch) return;
    try {
      const list = await call(api.GET('/api/t/{slug}/admin/branches/{id}/pdvs', { params: { path: { slug, id: pdv.branch } } }));
      const mine = list.find((p) => p._id === pdv._id) ?? null;
      setInfo(mine);
      setShift(
        mine?.activeShift
          ? await call(api.GET('/api/t/{slug}/admin/branches/{id}/shifts/{shiftId}', { params: { path: { slug, id: pdv.branch, shiftId: mine.activeShift._id } } }))
          : null,
      );
      setError(null);
    } catch (err) {
      setError(describe(err));
    }
  }
  useEffect(() => {
    void load();
  }, [pdv?._id]);

  async function run(found: Errors, fn: () => Promise<void>) {
    setErrors(found);
    if (Object.values(found).some(Boolean)) return;
    setBusy(true);
    try {
      await fn();
      setError(null);
    } catch (err) {
      if (err instanceof ApiError && err.fields.length) {
        const e: Errors = {};
        for (const f of err.fields) e[f.field.split('.').pop()!] = f.message;
        setErrors(e);
      }
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  }

  const open = (e: Event) => {
    e.preventDefault();
    const cents = parseMoney(float || '0');
    return run({ openingFloat: cents === null ? t.invalidMoney : undefined }, async () => {
      const me = await session.me();
      await call(
        api.POST('/api/t/{slug}/admin/branches/{id}/shifts/open', {
          params: { path: { slug, id: pdv!.branch! } },
          body: { pdvId: pdv!._id, openingFloat: cents!, userId: me.user._id },
        }),
      );
      setReport(null);
      setFloat('');
      await load();
    });
  };

  const addMovement = (e: Event) => {
    e.preventDefault();
    const cents = parseMoney(mvAmount);
    return run(
      { amount: cents === null ? t.invalidMoney : cents <= 0 ? t.positive : undefined, reason: mvReason.trim() ? undefined : t.requiredField },
      async () => {
        await call(
          api.POST('/api/t/{slug}/admin/branches/{id}/shifts/{shiftId}/movements', {
            params: { path: { slug, id: pdv!.branch!, shiftId: shift!._id } },
            body: { kind, amount: cents!, reason: mvReason.trim() },
          }),
        );
        setMvAmount('');
        setMvReason('');
        await load();
      },
    );
  };

  const closeShift = (e: Event) => {
    e.preventDefault();
    const found: Errors = {};
    const body: Record<string, number> = {};
    for (const m of COUNT_METHODS) {
      const raw = counted[m] ?? '';
      if (!raw.trim()) {
        if (m === 'cash') found.cash = t.requiredField;
        continue;
      }
      const c = parseMoney(raw);
      if (c === null) found[m] = t.invalidMoney;
      else body[m] = c;
    }
    return run(found, async () => {
      const r = await call(
        api.POST('/api/t/{slug}/admin/branches/{id}/shifts/{shiftId}/close', {
          params: { path: { slug, id: pdv!.branch!, shiftId: shift!._id } },
          body: { counted: body as { cash: number }, ...(notes.trim() ? { notes: notes.trim() } : {}) },
        }),
      );
      setReport(r);
      setCounted({});
      setNotes('');
      await load();
    });
  };

  return (
    <section class="floor">
      <div class="toolbar floor-toolbar">
        <h1>{t.shiftTitle}</h1>
        {pdvs && pdvs.length > 0 && (
          <div class="field floor-pdv">
            <label for="shift-pdv">{t.pdv}</label>
            <select
              id="shift-pdv"
              value={pdvId}
              onChange={(e) => {
                setPdvId(e.currentTarget.value);
                savePdv(slug, e.currentTarget.value);
                setReport(null);
              }}
            >
              {pdvs.map((p) => (
                <option key={p._id} value={p._id}>
                  {p.branchName ? `${p.name} · ${p.branchName}` : p.name}
                </option>
              ))}
            </select>
          </div>
        )}
      </div>
      {error && (
        <p role="alert" class="form-error">
          {error}
        </p>
      )}
      {!pdvs ? (
        <p aria-busy="true">{t.loading}</p>
      ) : pdvs.length === 0 ? (
        <p class="empty">{t.noPdvs}</p>
      ) : (
        <div class="stack">
          {report && (
            <section class="card" aria-labelledby="report-h" data-testid="shift-report">
              <h2 id="report-h">{t.report}</h2>
              <table class="data">
                <thead>
                  <tr>
                    <th scope="col">{t.method}</th>
                    <th scope="col" class="num">
                      {t.expected}
                    </th>
                    <th scope="col" class="num">
                      {t.countedCol}
                    </th>
                    <th scope="col" class="num">
                      {t.difference}
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {COUNT_METHODS.map((m) => (
                    <tr key={m}>
                      <td>{t.methods[m]}</td>
                      <td class="num">{formatMoney(report.expected?.[m] ?? 0)}</td>
                      <td class="num">{formatMoney(report.counted?.[m] ?? 0)}</td>
                      <td class="num">{formatMoney(report.difference?.[m] ?? 0)}</td>
                    </tr>
                  ))}
                  {report.totals && (
                    <tr>
                      <th scope="row">{t.total}</th>
                      <td class="num">{formatMoney(report.totals.expected)}</td>
                      <td class="num">{formatMoney(report.totals.counted)}</td>
                      <td class="num">{formatMoney(report.totals.difference)}</td>
                    </tr>
                  )}
                </tbody>
              </table>
            </section>
          )}
          {!shift ? (
            <section class="card" aria-labelledby="open-h">
              <h2 id="open-h">{t.openShift}</h2>
              <p class="hint">{info ? t.noShift : t.loading}</p>
              <form class="inline-form" onSubmit={open} noValidate>
                <MoneyField id="shift-float" label={t.openingFloat} value={float} onInput={setFloat} error={errors.openingFloat} />
                <button type="submit" class="btn primary" disabled={busy || !info}>
                  {t.openShift}
                </button>
              </form>
            </section>
          ) : (
            <>
              <section class="card" aria-labelledby="cur-h">
                <h2 id="cur-h">{shift.pdv.name}</h2>
                <p>
                  {t.shiftOpenBy(shift.user.name, formatDateTime(shift.startedAt))} · {t.openingFloat}: {formatMoney(shift.openingFloat)}
                </p>
                <h3>{t.movements}</h3>
                {shift.movements.length === 0 ? (
                  <p class="empty">{t.noMovements}</p>
                ) : (
                  <table class="data">
                    <tbody>
                      {shift.movements.map((m) => (
                        <tr key={m._id}>
                          <td>{formatDateTime(m.createdAt)}</td>
                          <td>{m.kind === 'withdrawal' ? t.withdrawal : t.addition}</td>
                          <td>{m.reason}</td>
                          <td class="num">{formatMoney(m.amount)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
              </section>
              <section class="card" aria-labelledby="mv-h">
                <h2 id="mv-h">{t.movement}</h2>
                <form class="inline-form" onSubmit={addMovement} noValidate>
                  <div class="field">
                    <label for="mv-kind">{t.movementKind}</label>
                    <select id="mv-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as 'withdrawal' | 'addition')}>
                      <option value="withdrawal">{t.withdrawal}</option>
                      <option value="addition">{t.addition}</option>
                    </select>
                  </div>
                  <MoneyField id="mv-amount" label={t.movementAmount} value={mvAmount} onInput={setMvAmount} error={errors.amount} />
                  <div class={`field${errors.reason ? ' field-invalid' : ''}`}>
                    <label for="mv-reason">{t.reason}</label>
                    <input id="mv-reason" maxLength={200} value={mvReason} onInput={(e) => setMvReason(e.currentTarget.value)} aria-invalid={errors.reason ? 'true' : undefined} />
                    {errors.reason && (
                      <p class="field-error" role="alert">
                        {errors.reason}
                      </p>
                    )}
                  </div>
                  <button type="submit" class="btn" disabled={busy}>
                    {t.register}
                  </button>
                </form>
              </section>
              <section class="card" aria-labelledby="close-h">
                <h2 id="close-h">{t.closeShift}</h2>
                <form onSubmit={closeShift} noValidate>
                  <div class="inline-form">
                    {COUNT_METHODS.map((m) => (
                      <MoneyField key={m} id={`count-${m}`} label={t.counted(t.methods[m])} value={counted[m] ?? ''} onInput={(v) => setCounted((c) => ({ ...c, [m]: v }))} error={errors[m]} />
                    ))}
                  </div>
                  <div class="field">
                    <label for="close-notes">{t.closingNotes}</label>
                    <textarea id="close-notes" maxLength={1000} value={notes} onInput={(e) => setNotes(e.currentTarget.value)} />
                  </div>
                  <button type="submit" class="btn primary" disabled={busy}>
                    {t.closeShift}
                  </button>
                </form>
              </section>
            </>
          )}
        </div>
      )}
    </section>
  );
}
