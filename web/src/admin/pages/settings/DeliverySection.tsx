/** Delivery platform integrations (spec 4.14): one per provider; credentials write-only; activate / deactivate. */
import { useEffect, useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import type { paths } from '../../api/schema.js';
import { Field, fieldId } from '../../ui/Field.js';
import { formatDateTime } from '../../ui/format.js';
import { apiErrors, hasErrors, type Errors } from './forms.js';
import { strings as s } from './strings.js';

type Integration = paths['/t/{slug}/marketplace/integrations']['get']['responses'][200]['content']['application/json'][number];
type Provider = Integration['provider'];
const PROVIDERS: Provider[] = ['provider_a', 'provider_b', 'provider_c'];
const NAMES = ['clientId', 'clientSecret', 'merchantId', 'webhookSecret', 'jwksUrl'] as const;
type Name = (typeof NAMES)[number];

function ProviderCard({ slug, provider, integration, onChange }: { slug: string; provider: Provider; integration?: Integration; onChange: () => void }) {
  const [editing, setEditing] = useState(false);
  const [form, setForm] = useState<Record<Name, string>>({ clientId: '', clientSecret: '', merchantId: '', webhookSecret: '', jwksUrl: '' });
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const [ids] = useState(() => Object.fromEntries(NAMES.map((n) => [n, fieldId(`${provider}-${n}`)])) as Record<Name, string>);

  const open = () => {
    setForm({
      clientId: integration?.credentials.clientId ?? '',
      merchantId: integration?.credentials.merchantId ?? '',
      clientSecret: '',
      webhookSecret: '',
      jwksUrl: integration?.jwksUrl ?? '',
    });
    setErrors({});
    setEditing(true);
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    const v: Errors = {};
    if (!form.clientId.trim()) v.clientId = s.required;
    if (!form.merchantId.trim()) v.merchantId = s.required;
    if (!integration && !form.clientSecret.trim()) v.clientSecret = s.required;
    if (form.jwksUrl.trim() && !/^https?:\/\/[^\s/?#]+\S*$/.test(form.jwksUrl.trim())) v.jwksUrl = s.invalidUrl;
    setErrors(v);
    if (hasErrors(v)) return;
    setBusy(true);
    try {
      const jwksUrl = provider === 'provider_c' ? form.jwksUrl.trim() || null : undefined;
      if (!integration) {
        await call(
          api.POST('/t/{slug}/marketplace/integrations', {
            params: { path: { slug } },
            body: {
              provider,
              credentials: { clientId: form.clientId.trim(), clientSecret: form.clientSecret.trim(), merchantId: form.merchantId.trim() },
              webhookSecret: form.webhookSecret.trim() || undefined,
              jwksUrl,
            },
          }),
        );
      } else {
        const credentials: { clientId?: string; clientSecret?: string; merchantId?: string } = {};
        if (form.clientId.trim() !== integration.credentials.clientId) credentials.clientId = form.clientId.trim();
        if (form.merchantId.trim() !== integration.credentials.merchantId) credentials.merchantId = form.merchantId.trim();
        if (form.clientSecret.trim()) credentials.clientSecret = form.clientSecret.trim();
        await call(
          api.PUT('/t/{slug}/marketplace/integrations/{id}', {
            params: { path: { slug, id: integration._id } },
            body: {
              credentials: Object.keys(credentials).length ? credentials : undefined,
              webhookSecret: form.webhookSecret.trim() || undefined,
              jwksUrl: jwksUrl === (integration.jwksUrl ?? null) ? undefined : jwksUrl,
            },
          }),
        );
      }
      setEditing(false);
      onChange();
    } catch (err) {
      setErrors(apiErrors(err, NAMES));
    } finally {
      setBusy(false);
    }
  };

  const toggle = async () => {
    if (!integration) return;
    setBusy(true);
    setErrors({});
    try {
      const path = { slug, id: integration._id };
      if (integration.active) await call(api.POST('/t/{slug}/marketplace/integrations/{id}/deactivate', { params: { path } }));
      else await call(api.POST('/t/{slug}/marketplace/integrations/{id}/activate', { params: { path } }));
      onChange();
    } catch (err) {
      setErrors(apiErrors(err, []));
    } finally {
      setBusy(false);
    }
  };

  const input = (n: Name, label: string, secret = false, hint?: string) => (
    <Field id={ids[n]} label={label} error={errors[n]} hint={hint}>
      {(p) => (
        <input
          {...p}
          type={(secret ? 'password' : 'text') as 'text'}
          autocomplete="off"
          value={form[n]}
          onInput={(e) => setForm({ ...form, [n]: e.currentTarget.value })}
        />
      )}
    </Field>
  );

  return (
    <li class="card">
      <h3>
        {s.providers[provider]}{' '}
        <span class={`badge${integration?.active ? ' on' : ''}`}>{!integration ? s.notConfigured : integration.active ? s.active : s.inactive}</span>
      </h3>
      {integration && (
        <>
          <p>
            {s.clientId}: {integration.credentials.clientId} · {s.merchantId}: {integration.credentials.merchantId}
          </p>
          <p>
            {s.clientSecret}: {integration.credentials.clientSecretSet ? s.secretSet : s.secretUnset} · {s.webhookSecret}:{' '}
            {integration.webhookSecretSet ? s.secretSet : s.secretUnset}
          </p>
          <p>{integration.lastSyncAt ? s.lastSync(formatDateTime(integration.lastSyncAt), integration.syncedItemCount) : s.neverSynced}</p>
        </>
      )}
      {editing ? (
        <form onSubmit={submit} noValidate aria-label={s.configure(s.providers[provider])}>
          {input('clientId', s.clientId)}
          {input('clientSecret', s.clientSecret, true, integration ? s.secretKeepHint : undefined)}
          {input('merchantId', s.merchantId)}
          {input('webhookSecret', s.webhookSecret, true, integration?.webhookSecretSet ? s.secretKeepHint : s.webhookSecretHint)}
          {provider === 'provider_c' && input('jwksUrl', s.jwksUrl)}
          <div class="form-actions">
            <button type="submit" class="btn primary" disabled={busy}>
              {s.save}
            </button>
            <button type="button" class="btn" onClick={() => setEditing(false)}>
              {s.cancel}
            </button>
          </div>
        </form>
      ) : (
        <div class="form-actions">
          <button type="button" class="btn" onClick={open}>
            {integration ? s.editCredentials : s.configure(s.providers[provider])}
          </button>
          {integration && (
            <button type="button" class={`btn${integration.active ? '' : ' primary'}`} disabled={busy} onClick={() => void toggle()}>
              {integration.active ? s.deactivate : s.activate}
            </button>
          )}
        </div>
      )}
      {errors._form && (
        <p class="form-error" role="alert">
          {errors._form}
        </p>
      )}
    </li>
  );
}

export function DeliverySection({ slug }: { slug: string }) {
  const [list, setList] = useState<Integration[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    call(api.GET('/t/{slug}/marketplace/integrations', { params: { path: { slug } } }))
      .then((l) => {
        setList(l);
        setError(null);
      })
      .catch((err) => setError(apiErrors(err, [])._form ?? s.unexpected));
  useEffect(() => {
    void load();
  }, [slug]);
  return (
    <section aria-labelledby="delivery-heading">
      <h2 id="delivery-heading">{s.deliveryTitle}</h2>
      <p class="hint">{s.deliveryIntro}</p>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      {list === null ? (
        <p aria-busy="true">{s.loading}</p>
      ) : (
        <ul class="cards">
          {PROVIDERS.map((p) => (
            <ProviderCard key={p} slug={slug} provider={p} integration={list.find((i) => i.provider === p)} onChange={() => void load()} />
          ))}
        </ul>
      )}
    </section>
  );
}
