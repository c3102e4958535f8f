/** Settings (admin): the tenant's configuration (secrets write-only), the Apps installed, the delivery integrations. */
import { useEffect, useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import type { paths } from '../../api/schema.js';
import type { PageProps } from '../../types.js';
import { Field, fieldId } from '../../ui/Field.js';
import { formatMoney } from '../../ui/format.js';
import { AppsSection } from './AppsSection.js';
import { DeliverySection } from './DeliverySection.js';
import { apiErrors, hasErrors, isCep, isCnpj, isEmail, moneyInput, numberInput, parseMoney, parseNumber, twoDecimals, UFS, type Errors } from './forms.js';
import { strings as s } from './strings.js';
import './settings.css';

type Tenant = paths['/t/{slug}/tenants']['get']['responses'][200]['content']['application/json'];
type TenantBody = NonNullable<paths['/t/{slug}/tenants']['put']['requestBody']>['content']['application/json'];

/** Text fields where an empty input clears the value (null). */
const TEXTS = ['email', 'primaryColor', 'cnpj', 'inscricaoEstadual', 'address', 'addressNumber', 'district', 'city', 'cep', 'walletDeviceId', 'walletPublicKey', 'pixKey'] as const;
const SELECTS = ['regimeTributario', 'fiscalProviderAmbiente', 'state'] as const;
const SECRETS = ['fiscalProviderToken', 'walletAccessToken'] as const;
const ALL = ['name', ...TEXTS, ...SELECTS, ...SECRETS, 'serviceChargePercent', 'coverCharge', 'discountLimitPercent', 'requireShift'] as const;
type Name = (typeof ALL)[number];
type Form = Record<Exclude<Name, 'requireShift'>, string> & { requireShift: boolean };

function formOf(t: Tenant): Form {
  const f = { name: t.name } as Form;
  for (const k of [...TEXTS, ...SELECTS]) f[k] = (t[k] as string | null) ?? '';
  for (const k of SECRETS) f[k] = '';
  f.serviceChargePercent = numberInput(t.serviceChargePercent);
  f.coverCharge = moneyInput(t.coverCharge);
  f.discountLimitPercent = numberInput(t.discountLimitPercent);
  f.requireShift = t.requireShift;
  return f;
}

/** The page's own checks, in pt-BR, before anything is sent. */
function validate(f: Form): Errors {
  const e: Errors = {};
  if (!f.name.trim()) e.name = s.required;
  if (f.email.trim() && !isEmail(f.email)) e.email = s.invalidEmail;
  if (f.primaryColor.trim() && !/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(f.primaryColor.trim())) e.primaryColor = s.invalidColor;
  if (f.cnpj.trim() && !isCnpj(f.cnpj)) e.cnpj = s.invalidCnpj;
  if (f.inscricaoEstadual.trim() && !/^(?:ISENTO|[0-9]{2,14})$/.test(f.inscricaoEstadual.trim().toUpperCase())) e.inscricaoEstadual = s.invalidIe;
  if (f.cep.trim() && !isCep(f.cep)) e.cep = s.invalidCep;
  if (f.pixKey.trim().length > 100) e.pixKey = s.tooLong(100);
  const pct = (k: 'serviceChargePercent' | 'discountLimitPercent', max: number) => {
    const n = parseNumber(f[k]);
    if (n === null || n < 0 || n > max || !twoDecimals(n)) e[k] = s.percentRange(max);
  };
  pct('serviceChargePercent', 30);
  pct('discountLimitPercent', 100);
  const cover = parseMoney(f.coverCharge);
  if (cover === null || cover > 100_000) e.coverCharge = s.moneyRange(formatMoney(100_000));
  return e;
}

/** Only what changed: empty texts clear (null), secrets only when a new one is typed. */
function changes(f: Form, t: Tenant): TenantBody {
  const body: Record<string, unknown> = {};
  if (f.name.trim() !== t.name) body.name = f.name.trim();
  for (const k of [...TEXTS, ...SELECTS]) {
    let v = f[k].trim();
    if (k === 'inscricaoEstadual') v = v.toUpperCase();
    const next = v === '' ? null : v;
    if (next !== ((t[k] as string | null) ?? null)) body[k] = next;
  }
  for (const k of SECRETS) if (f[k].trim()) body[k] = f[k].trim();
  const sc = parseNumber(f.serviceChargePercent)!;
  if (sc !== t.serviceChargePercent) body.serviceChargePercent = sc;
  const dl = parseNumber(f.discountLimitPercent)!;
  if (dl !== t.discountLimitPercent) body.discountLimitPercent = dl;
  const cover = parseMoney(f.coverCharge)!;
  if (cover !== t.coverCharge) body.coverCharge = cover;
  if (f.requireShift !== t.requireShift) body.requireShift = f.requireShift;
  return body as TenantBody;
}

const ids = Object.fromEntries(ALL.map((n) => [n, fieldId(n)])) as Record<Name, string>;

export default function SettingsPage({ slug }: PageProps) {
  const [tenant, setTenant] = useState<Tenant | null>(null);
  const [form, setForm] = useState<Form | null>(null);
  const [errors, setErrors] = useState<Errors>({});
  const [loadError, setLoadError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);

  const load = () =>
    call(api.GET('/t/{slug}/tenants', { params: { path: { slug } } }))
      .then((t) => {
        setTenant(t);
        setForm(formOf(t));
        setLoadError(null);
      })
      .catch((err) => setLoadError(apiErrors(err, [])._form ?? s.unexpected));
  useEffect(() => {
    void load();
  }, [slug]);

  if (loadError)
    return (
      <>
        <h1>{s.settingsTitle}</h1>
        <p role="alert" class="form-error">
          {loadError}{' '}
          <button type="button" class="btn" onClick={() => void load()}>
            {s.retry}
          </button>
        </p>
      </>
    );
  if (!form || !tenant)
    return (
      <>
        <h1>{s.settingsTitle}</h1>
        <p aria-busy="true">{s.loading}</p>
      </>
    );

  const set = (k: Exclude<Name, 'requireShift'>) => (e: Event) => {
    setForm({ ...form, [k]: (e.currentTarget as HTMLInputElement).value });
    setSaved(false);
  };

  const text = (k: Exclude<Name, 'requireShift'>, label: string, extra: Record<string, unknown> = {}, hint?: string) => (
    <Field id={ids[k]} label={label} error={errors[k]} hint={hint}>
      {(p) => <input {...p} name={k} value={form[k]} onInput={set(k)} {...extra} />}
    </Field>
  );
  const select = (k: (typeof SELECTS)[number], label: string, options: readonly (readonly [string, string])[]) => (
    <Field id={ids[k]} label={label} error={errors[k]}>
      {(p) => (
        <select {...p} name={k} value={form[k]} onChange={set(k)}>
          <option value="">{s.notInformed}</option>
          {options.map(([v, l]) => (
            <option key={v} value={v}>
              {l}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
  const secret = (k: (typeof SECRETS)[number], label: string, isSet: boolean) => (
    <Field
      id={ids[k]}
      label={label}
      error={errors[k]}
      hint={isSet ? s.secretSetHint : s.secretUnsetHint}
    >
      {(p) => (
        <>
          <span class={`secret-state ${isSet ? 'set' : 'unset'}`} data-testid={`${k}-state`}>
            {isSet ? s.secretSet : s.secretUnset}
          </span>
          <input {...p} name={k} type="password" autocomplete="off" value={form[k]} onInput={set(k)} placeholder={isSet ? s.replacePlaceholder : ''} />
        </>
      )}
    </Field>
  );

  const submit = async (e: Event) => {
    e.preventDefault();
    const v = validate(form);
    setErrors(v);
    setSaved(false);
    if (hasErrors(v)) {
      const first = ALL.find((n) => v[n]);
      if (first) document.getElementById(ids[first])?.focus();
      return;
    }
    const body = changes(form, tenant);
    if (Object.keys(body).length === 0) {
      setSaved(true);
      return;
    }
    setBusy(true);
    try {
      const t = await call(api.PUT('/t/{slug}/tenants', { params: { path: { slug } }, body }));
      setTenant(t);
      setForm(formOf(t));
      setSaved(true);
    } catch (err) {
      setErrors(apiErrors(err, ALL));
    } finally {
      setBusy(false);
    }
  };

  const clearSecret = async (k: (typeof SECRETS)[number]) => {
    if (!confirm(s.clearSecretConfirm)) return;
    setBusy(true);
    try {
      const t = await call(api.PUT('/t/{slug}/tenants', { params: { path: { slug } }, body: { [k]: null } }));
      setTenant(t);
      setForm({ ...form, [k]: '' });
    } catch (err) {
      setErrors(apiErrors(err, ALL));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <h1>{s.settingsTitle}</h1>
      <form onSubmit={submit} noValidate aria-labelledby="tenant-config-heading">
        <h2 id="tenant-config-heading" class="sr-only">
          {s.tenantConfig}
        </h2>
        <div class="settings-grid">
          <fieldset>
            <legend>{s.identity}</legend>
            {text('name', s.name, { autocomplete: 'organization', maxLength: 120 })}
            {text('email', s.email, { type: 'email', autocomplete: 'email' })}
            {text('primaryColor', s.primaryColor, { placeholder: '#c0392b' }, s.primaryColorHint)}
          </fieldset>
          <fieldset>
            <legend>{s.billSettings}</legend>
            {text('serviceChargePercent', s.serviceCharge, { inputMode: 'decimal' }, s.serviceChargeHint)}
            {text('coverCharge', s.coverCharge, { inputMode: 'decimal' }, s.coverChargeHint)}
            {text('discountLimitPercent', s.discountLimit, { inputMode: 'decimal' }, s.discountLimitHint)}
            <label class="check">
              <input
                type="checkbox"
                name="requireShift"
                checked={form.requireShift}
                onChange={(e) => setForm({ ...form, requireShift: e.currentTarget.checked })}
              />
              {s.requireShift}
            </label>
          </fieldset>
          <fieldset>
            <legend>{s.payments}</legend>
            {text('pixKey', s.pixKey, { maxLength: 100, autocomplete: 'off' }, s.pixKeyHint)}
            {secret('walletAccessToken', s.walletAccessToken, tenant.walletAccessTokenSet)}
            {tenant.walletAccessTokenSet && (
              <button type="button" class="btn" disabled={busy} onClick={() => void clearSecret('walletAccessToken')}>
                {s.clearSecret}
              </button>
            )}
            {text('walletDeviceId', s.walletDeviceId)}
            {text('walletPublicKey', s.walletPublicKey)}
          </fieldset>
          <fieldset>
            <legend>{s.fiscal}</legend>
            <div class="row-2">
              {text('cnpj', s.cnpj, { inputMode: 'numeric', placeholder: '00.000.000/0000-00' })}
              {text('inscricaoEstadual', s.ie, {}, s.ieHint)}
            </div>
            {select('regimeTributario', s.regime, Object.entries(s.regimes))}
            {select('fiscalProviderAmbiente', s.ambiente, Object.entries(s.ambientes))}
            {secret('fiscalProviderToken', s.fiscalProviderToken, tenant.fiscalProviderTokenSet)}
            {tenant.fiscalProviderTokenSet && (
              <button type="button" class="btn" disabled={busy} onClick={() => void clearSecret('fiscalProviderToken')}>
                {s.clearSecret}
              </button>
            )}
          </fieldset>
          <fieldset>
            <legend>{s.addressLegend}</legend>
            {text('address', s.address, { autocomplete: 'address-line1' })}
            <div class="row-2">
              {text('addressNumber', s.addressNumber)}
              {text('district', s.district)}
              {text('city', s.city, { autocomplete: 'address-level2' })}
              {select('state', s.state, UFS.map((u) => [u, u] as const))}
            </div>
            {text('cep', s.cep, { inputMode: 'numeric', autocomplete: 'postal-code', placeholder: '00000-000' })}
          </fieldset>
        </div>
        <div class="form-actions">
          <button type="submit" class="btn primary" disabled={busy} data-testid="save-settings">
            {busy ? s.saving : s.save}
          </button>
          {saved && (
            <span class="saved" role="status">
              {s.saved}
            </span>
          )}
          {errors._form && (
            <span class="form-error" role="alert">
              {errors._form}
            </span>
          )}
        </div>
      </form>
      <AppsSection slug={slug} />
      <DeliverySection slug={slug} />
    </>
  );
}
