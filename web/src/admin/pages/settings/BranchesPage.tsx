/** Branches and PDVs (admin; a branch manager sees and edits theirs): list a page at a time, create / edit a branch and its PDVs. */
import { useEffect, useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import type { paths } from '../../api/schema.js';
import type { PageProps } from '../../types.js';
import { Field, fieldId } from '../../ui/Field.js';
import { formatMoney } from '../../ui/format.js';
import { Pager } from '../../ui/Pager.js';
import { Dialog } from './Dialog.js';
import { apiErrors, hasErrors, isCep, isCnpj, isSlug, moneyInput, numberInput, parseMoney, parseNumber, slugify, twoDecimals, UFS, type Errors } from './forms.js';
import { strings as s } from './strings.js';
import './settings.css';

type Branch = paths['/api/t/{slug}/admin/branches']['get']['responses'][200]['content']['application/json']['data'][number];
type Pdv = paths['/api/t/{slug}/admin/branches/{id}/pdvs']['get']['responses'][200]['content']['application/json'][number];
type ServiceMode = Pdv['serviceMode'];
const LIMIT = 10;

const B_NAMES = ['name', 'slug', 'cnpj', 'address', 'city', 'state', 'cep'] as const;
type BForm = Record<(typeof B_NAMES)[number], string> & { ibsCbsEnabled: boolean; isHQ: boolean; active: boolean };

interface BranchFormProps {
  slug: string;
  branch?: Branch;
  isAdmin: boolean;
  onDone: () => void;
  onCancel: () => void;
}

function BranchForm({ slug, branch, isAdmin, onDone, onCancel }: BranchFormProps) {
  const [f, setF] = useState<BForm>({
    name: branch?.name ?? '',
    slug: branch?.slug ?? '',
    cnpj: branch?.cnpj ?? '',
    address: branch?.address ?? '',
    city: branch?.city ?? '',
    state: branch?.state ?? '',
    cep: branch?.cep ?? '',
    ibsCbsEnabled: branch?.ibsCbsEnabled ?? false,
    isHQ: branch?.isHQ ?? false,
    active: branch?.active ?? true,
  });
  const [slugTouched, setSlugTouched] = useState(!!branch);
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const [ids] = useState(() => Object.fromEntries(B_NAMES.map((n) => [n, fieldId(`branch-${n}`)])) as Record<(typeof B_NAMES)[number], string>);

  const submit = async (e: Event) => {
    e.preventDefault();
    const v: Errors = {};
    for (const n of ['name', 'address', 'city'] as const) if (!f[n].trim()) v[n] = s.required;
    if (!isSlug(f.slug)) v.slug = s.invalidSlug;
    if (!isCnpj(f.cnpj)) v.cnpj = s.invalidCnpj;
    if (!f.state) v.state = s.required;
    if (!isCep(f.cep)) v.cep = s.invalidCep;
    setErrors(v);
    if (hasErrors(v)) return;
    setBusy(true);
    const fields = {
      name: f.name.trim(),
      slug: f.slug,
      cnpj: f.cnpj.trim(),
      address: f.address.trim(),
      city: f.city.trim(),
      state: f.state as (typeof UFS)[number],
      cep: f.cep.trim(),
      ibsCbsEnabled: f.ibsCbsEnabled,
    };
    try {
      if (!branch) await call(api.POST('/api/t/{slug}/admin/branches', { params: { path: { slug } }, body: { ...fields, isHQ: f.isHQ || undefined } }));
      else {
        const body: Record<string, unknown> = { ...fields };
        if (f.isHQ && !branch.isHQ) body.isHQ = true;
        if (f.active !== branch.active) body.active = f.active;
        await call(api.PUT('/api/t/{slug}/admin/branches/{id}', { params: { path: { slug, id: branch._id } }, body }));
      }
      onDone();
    } catch (err) {
      setErrors(apiErrors(err, B_NAMES));
    } finally {
      setBusy(false);
    }
  };

  const text = (n: (typeof B_NAMES)[number], label: string, extra: Record<string, unknown> = {}) => (
    <Field id={ids[n]} label={label} error={errors[n]}>
      {(p) => (
        <input
          {...p}
          value={f[n]}
          onInput={(e) => {
            const value = e.currentTarget.value;
            if (n === 'slug') setSlugTouched(true);
            setF({ ...f, [n]: value, ...(n === 'name' && !slugTouched ? { slug: slugify(value) } : {}) });
          }}
          {...extra}
        />
      )}
    </Field>
  );

  return (
    <form onSubmit={submit} noValidate aria-label={branch ? s.editBranch(branch.name) : s.newBranch}>
      <div class="row-2">
        {text('name', s.name, { maxLength: 120 })}
        {text('slug', s.slug, { autocapitalize: 'off' })}
        {text('cnpj', s.cnpj, { inputMode: 'numeric', placeholder: '00.000.000/0000-00' })}
        {text('cep', s.cep, { inputMode: 'numeric', placeholder: '00000-000' })}
      </div>
      {text('address', s.address)}
      <div class="row-2">
        {text('city', s.city)}
        <Field id={ids.state} label={s.state} error={errors.state}>
          {(p) => (
            <select {...p} value={f.state} onChange={(e) => setF({ ...f, state: e.currentTarget.value })}>
              <option value="">{s.choose}</option>
              {UFS.map((u) => (
                <option key={u} value={u}>
                  {u}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <label class="check">
        <input type="checkbox" checked={f.ibsCbsEnabled} onChange={(e) => setF({ ...f, ibsCbsEnabled: e.currentTarget.checked })} />
        {s.ibsCbs}
      </label>
      {isAdmin && !branch?.isHQ && (
        <label class="check">
          <input type="checkbox" checked={f.isHQ} onChange={(e) => setF({ ...f, isHQ: e.currentTarget.checked })} />
          {s.makeHQ}
        </label>
      )}
      {branch && !branch.isHQ && (
        <label class="check">
          <input type="checkbox" checked={f.active} onChange={(e) => setF({ ...f, active: e.currentTarget.checked })} />
          {s.branchActive}
        </label>
      )}
      <div class="form-actions">
        <button type="submit" class="btn primary" disabled={busy}>
          {s.save}
        </button>
        <button type="button" class="btn" onClick={onCancel}>
          {s.cancel}
        </button>
        {errors._form && (
          <span class="form-error" role="alert">
            {errors._form}
          </span>
        )}
      </div>
    </form>
  );
}

const P_NAMES = ['name', 'slug', 'serviceMode', 'gatewayATerminalSerial', 'pixKey', 'serviceChargePercent', 'coverCharge'] as const;
type PForm = Record<(typeof P_NAMES)[number], string> & { active: boolean };

function PdvForm({ slug, branch, pdv, onDone, onCancel }: { slug: string; branch: Branch; pdv?: Pdv; onDone: () => void; onCancel: () => void }) {
  const [f, setF] = useState<PForm>({
    name: pdv?.name ?? '',
    slug: pdv?.slug ?? '',
    serviceMode: pdv?.serviceMode ?? 'balcao',
    gatewayATerminalSerial: pdv?.gatewayATerminalSerial ?? '',
    pixKey: pdv?.pixKey ?? '',
    serviceChargePercent: pdv?.serviceChargePercent == null ? '' : numberInput(pdv.serviceChargePercent),
    coverCharge: pdv?.coverCharge == null ? '' : moneyInput(pdv.coverCharge),
    active: pdv?.active ?? true,
  });
  const [slugTouched, setSlugTouched] = useState(!!pdv);
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const [ids] = useState(() => Object.fromEntries(P_NAMES.map((n) => [n, fieldId(`pdv-${n}`)])) as Record<(typeof P_NAMES)[number], string>);

  const submit = async (e: Event) => {
    e.preventDefault();
    const v: Errors = {};
    if (!f.name.trim()) v.name = s.required;
    if (!isSlug(f.slug)) v.slug = s.invalidSlug;
    const serial = f.gatewayATerminalSerial.trim().toUpperCase();
    if (serial && !/^T-[A-Z0-9-]{4,32}$/.test(serial)) v.gatewayATerminalSerial = s.invalidSerial;
    if (f.pixKey.trim().length > 100) v.pixKey = s.tooLong(100);
    const sc = f.serviceChargePercent.trim() ? parseNumber(f.serviceChargePercent) : null;
    if (f.serviceChargePercent.trim() && (sc === null || sc < 0 || sc > 30 || !twoDecimals(sc))) v.serviceChargePercent = s.percentRange(30);
    const cover = f.coverCharge.trim() ? parseMoney(f.coverCharge) : null;
    if (f.coverCharge.trim() && (cover === null || cover > 100_000)) v.coverCharge = s.moneyRange(formatMoney(100_000));
    setErrors(v);
    if (hasErrors(v)) return;
    setBusy(true);
    const body = {
      name: f.name.trim(),
      slug: f.slug,
      serviceMode: f.serviceMode as ServiceMode,
      gatewayATerminalSerial: serial || null,
      pixKey: f.pixKey.trim() || null,
      serviceChargePercent: sc,
      coverCharge: cover,
    };
    try {
      if (!pdv) await call(api.POST('/api/t/{slug}/admin/branches/{id}/pdvs', { params: { path: { slug, id: branch._id } }, body }));
      else
        await call(
          api.PUT('/api/t/{slug}/admin/branches/{id}/pdvs/{pdvId}', {
            params: { path: { slug, id: branch._id, pdvId: pdv._id } },
            body: { ...body, ...(f.active !== pdv.active ? { active: f.active } : {}) },
          }),
        );
      onDone();
    } catch (err) {
      setErrors(apiErrors(err, P_NAMES));
    } finally {
      setBusy(false);
    }
  };

  const text = (n: (typeof P_NAMES)[number], label: string, extra: Record<string, unknown> = {}, hint?: string) => (
    <Field id={ids[n]} label={label} error={errors[n]} hint={hint}>
      {(p) => (
        <input
          {...p}
          value={f[n]}
          onInput={(e) => {
            const value = e.currentTarget.value;
            if (n === 'slug') setSlugTouched(true);
            setF({ ...f, [n]: value, ...(n === 'name' && !slugTouched ? { slug: slugify(value) } : {}) });
          }}
          {...extra}
        />
      )}
    </Field>
  );

  return (
    <form onSubmit={submit} noValidate aria-label={pdv ? s.editPdv(pdv.name) : s.newPdv}>
      <div class="row-2">
        {text('name', s.name, { maxLength: 120 })}
        {text('slug', s.slug, { autocapitalize: 'off' })}
        <Field id={ids.serviceMode} label={s.serviceMode} error={errors.serviceMode}>
          {(p) => (
            <select {...p} value={f.serviceMode} onChange={(e) => setF({ ...f, serviceMode: e.currentTarget.value })}>
              {Object.entries(s.serviceModes).map(([k, l]) => (
                <option key={k} value={k}>
                  {l}
                </option>
              ))}
            </select>
          )}
        </Field>
        {text('gatewayATerminalSerial', s.terminalSerial, { placeholder: 'T-ABCD1234', autocapitalize: 'characters' }, s.terminalSerialHint)}
        {text('pixKey', s.pixKey, { maxLength: 100 }, s.inheritHint)}
        {text('serviceChargePercent', s.serviceCharge, { inputMode: 'decimal' }, s.inheritHint)}
        {text('coverCharge', s.coverCharge, { inputMode: 'decimal' }, s.inheritHint)}
      </div>
      {pdv && (
        <label class="check">
          <input type="checkbox" checked={f.active} onChange={(e) => setF({ ...f, active: e.currentTarget.checked })} />
          {s.pdvActive}
        </label>
      )}
      <div class="form-actions">
        <button type="submit" class="btn primary" disabled={busy}>
          {s.save}
        </button>
        <button type="button" class="btn" onClick={onCancel}>
          {s.cancel}
        </button>
        {errors._form && (
          <span class="form-error" role="alert">
            {errors._form}
          </span>
        )}
      </div>
    </form>
  );
}

function BranchPdvs({ slug, branch, onEdit, version }: { slug: string; branch: Branch; onEdit: (pdv?: Pdv) => void; version: number }) {
  const [pdvs, setPdvs] = useState<Pdv[] | null>(null);
  useEffect(() => {
    call(api.GET('/api/t/{slug}/admin/branches/{id}/pdvs', { params: { path: { slug, id: branch._id } } }))
      .then(setPdvs)
      .catch(() => setPdvs([]));
  }, [slug, branch._id, version]);
  if (pdvs === null) return <p aria-busy="true">{s.loading}</p>;
  return (
    <div class="pdv-list">
      {pdvs.length === 0 ? (
        <p class="empty">{s.noPdvs}</p>
      ) : (
        <table class="data">
          <caption class="sr-only">{s.pdvsOf(branch.name)}</caption>
          <thead>
            <tr>
              <th scope="col">{s.pdv}</th>
              <th scope="col">{s.serviceMode}</th>
              <th scope="col">{s.terminalSerial}</th>
              <th scope="col">{s.status}</th>
              <th scope="col">
                <span class="sr-only">{s.actions}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {pdvs.map((p) => (
              <tr key={p._id}>
                <td>{p.name}</td>
                <td>{s.serviceModes[p.serviceMode]}</td>
                <td>{p.gatewayATerminalSerial ?? '—'}</td>
                <td>{p.active ? s.active : s.inactive}</td>
                <td>
                  <button type="button" class="btn" aria-label={s.editPdv(p.name)} onClick={() => onEdit(p)}>
                    {s.edit}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <button type="button" class="btn" onClick={() => onEdit()}>
        {s.newPdvIn(branch.name)}
      </button>
    </div>
  );
}

export default function BranchesPage({ slug, role }: PageProps) {
  const isAdmin = role === 'admin' || role === 'superadmin';
  const [data, setData] = useState<{ data: Branch[]; total: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<string | null>(null);
  const [branchDialog, setBranchDialog] = useState<{ branch?: Branch } | null>(null);
  const [pdvDialog, setPdvDialog] = useState<{ branch: Branch; pdv?: Pdv } | null>(null);
  const [version, setVersion] = useState(0);

  const load = () =>
    call(api.GET('/api/t/{slug}/admin/branches', { params: { path: { slug }, query: { page, limit: LIMIT } } }))
      .then((d) => {
        setData(d);
        setError(null);
      })
      .catch((err) => setError(apiErrors(err, [])._form ?? s.unexpected));
  useEffect(() => {
    void load();
  }, [slug, page]);

  return (
    <>
      <h1>{s.branchesTitle}</h1>
      {isAdmin && (
        <div class="toolbar">
          <button type="button" class="btn primary" onClick={() => setBranchDialog({})}>
            {s.newBranch}
          </button>
        </div>
      )}
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      {data === null ? (
        <p aria-busy="true">{s.loading}</p>
      ) : data.data.length === 0 ? (
        <p class="empty">{isAdmin ? s.noBranchesAdmin : s.noBranches}</p>
      ) : (
        <ul class="cards" style={{ gridTemplateColumns: '1fr' }} data-testid="branches">
          {data.data.map((b) => (
            <li key={b._id} class="card">
              <h2 style={{ margin: 0 }}>
                {b.name} {b.isHQ && <span class="badge on">{s.hq}</span>} {!b.active && <span class="badge">{s.inactive}</span>}
              </h2>
              <p>
                {[b.address, b.city, b.state].filter(Boolean).join(', ') || '—'}
                {b.cnpj ? ` · CNPJ ${b.cnpj}` : ''}
              </p>
              <div class="form-actions">
                <button type="button" class="btn" aria-label={s.editBranch(b.name)} onClick={() => setBranchDialog({ branch: b })}>
                  {s.edit}
                </button>
                <button type="button" class="btn" aria-expanded={open === b._id} onClick={() => setOpen(open === b._id ? null : b._id)}>
                  {open === b._id ? s.hidePdvs : s.showPdvs}
                </button>
              </div>
              {open === b._id && <BranchPdvs slug={slug} branch={b} version={version} onEdit={(pdv) => setPdvDialog({ branch: b, pdv })} />}
            </li>
          ))}
        </ul>
      )}
      <Pager page={page} total={data?.total ?? 0} limit={LIMIT} onPage={setPage} />
      <Dialog
        open={branchDialog !== null}
        title={branchDialog?.branch ? s.editBranch(branchDialog.branch.name) : s.newBranch}
        onClose={() => setBranchDialog(null)}
      >
        {branchDialog && (
          <BranchForm
            slug={slug}
            branch={branchDialog.branch}
            isAdmin={isAdmin}
            onCancel={() => setBranchDialog(null)}
            onDone={() => {
              setBranchDialog(null);
              void load();
            }}
          />
        )}
      </Dialog>
      <Dialog open={pdvDialog !== null} title={pdvDialog?.pdv ? s.editPdv(pdvDialog.pdv.name) : s.newPdv} onClose={() => setPdvDialog(null)}>
        {pdvDialog && (
          <PdvForm
            slug={slug}
            branch={pdvDialog.branch}
            pdv={pdvDialog.pdv}
            onCancel={() => setPdvDialog(null)}
            onDone={() => {
              setPdvDialog(null);
              setVersion(version + 1);
            }}
          />
        )}
      </Dialog>
    </>
  );
}
