/** Apps installed (spec 4.1): the tenant's installations, the published catalog to install from, revoke; the token shown once. */
import { useEffect, useState } from 'preact/hooks';
import { api, call } from '../../api/client.js';
import type { paths } from '../../api/schema.js';
import { formatDateTime } from '../../ui/format.js';
import { Dialog } from './Dialog.js';
import { apiErrors } from './forms.js';
import { strings as s } from './strings.js';

type Installation = paths['/t/{slug}/admin/marketplace/installations']['get']['responses'][200]['content']['application/json'][number];
type App = paths['/t/{slug}/admin/marketplace/apps']['get']['responses'][200]['content']['application/json'][number];

function InstallCard({ app, slug, onInstalled }: { app: App; slug: string; onInstalled: (token: string, name: string) => void }) {
  const [scopes, setScopes] = useState<string[]>(app.scopes);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const install = async () => {
    if (scopes.length === 0) return setError(s.chooseScope);
    setBusy(true);
    setError(null);
    try {
      const res = await call(api.POST('/t/{slug}/admin/marketplace/apps/{appSlug}/install', { params: { path: { slug, appSlug: app.slug } }, body: { scopes } }));
      onInstalled(res.accessToken, app.name);
    } catch (err) {
      setError(apiErrors(err, ['scopes'])._form ?? s.unexpected);
    } finally {
      setBusy(false);
    }
  };
  return (
    <li class="card">
      <h3>{app.name}</h3>
      {app.description && <p>{app.description}</p>}
      <fieldset class="checks">
        <legend>{s.scopes}</legend>
        {app.scopes.map((sc) => (
          <label key={sc} class="check">
            <input
              type="checkbox"
              checked={scopes.includes(sc)}
              onChange={(e) => setScopes(e.currentTarget.checked ? [...scopes, sc] : scopes.filter((x) => x !== sc))}
            />
            {(s.scopeNames as Record<string, string>)[sc] ?? sc}
          </label>
        ))}
      </fieldset>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      <button type="button" class="btn primary" disabled={busy} onClick={() => void install()}>
        {s.install(app.name)}
      </button>
    </li>
  );
}

export function AppsSection({ slug }: { slug: string }) {
  const [installed, setInstalled] = useState<Installation[] | null>(null);
  const [catalog, setCatalog] = useState<App[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [token, setToken] = useState<{ value: string; app: string } | null>(null);
  const [copied, setCopied] = useState(false);

  const load = async () => {
    try {
      const [inst, apps] = await Promise.all([
        call(api.GET('/t/{slug}/admin/marketplace/installations', { params: { path: { slug } } })),
        call(api.GET('/t/{slug}/admin/marketplace/apps', { params: { path: { slug } } })),
      ]);
      setInstalled(inst);
      setCatalog(apps);
      setError(null);
    } catch (err) {
      setError(apiErrors(err, [])._form ?? s.unexpected);
    }
  };
  useEffect(() => {
    void load();
  }, [slug]);

  const revoke = async (i: Installation) => {
    if (!confirm(s.revokeConfirm(i.app.name))) return;
    try {
      await call(api.DELETE('/t/{slug}/admin/marketplace/installations/{id}', { params: { path: { slug, id: i._id } } }));
      await load();
    } catch (err) {
      setError(apiErrors(err, [])._form ?? s.unexpected);
    }
  };

  const copy = async () => {
    if (!token) return;
    try {
      await navigator.clipboard.writeText(token.value);
      setCopied(true);
    } catch {
      (document.getElementById('app-token') as HTMLTextAreaElement | null)?.select();
    }
  };

  const installedIds = new Set((installed ?? []).map((i) => i.app._id));
  const available = catalog.filter((a) => !installedIds.has(a._id));

  return (
    <section aria-labelledby="apps-heading">
      <h2 id="apps-heading">{s.appsTitle}</h2>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      {installed === null ? (
        <p aria-busy="true">{s.loading}</p>
      ) : installed.length === 0 ? (
        <p class="empty">{s.noApps}</p>
      ) : (
        <div class="table-wrap">
          <table class="data" data-testid="installations">
            <caption class="sr-only">{s.appsInstalled}</caption>
            <thead>
              <tr>
                <th scope="col">{s.app}</th>
                <th scope="col">{s.scopes}</th>
                <th scope="col">{s.installedAt}</th>
                <th scope="col">
                  <span class="sr-only">{s.actions}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {installed.map((i) => (
                <tr key={i._id}>
                  <td>
                    {i.app.name}
                    {i.webhooksDisabledAt && <span class="badge"> {s.webhooksOff}</span>}
                  </td>
                  <td>{i.scopes.map((sc) => (s.scopeNames as Record<string, string>)[sc] ?? sc).join(', ')}</td>
                  <td>{formatDateTime(i.createdAt)}</td>
                  <td>
                    <button type="button" class="btn danger" onClick={() => void revoke(i)}>
                      {s.revoke}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h3>{s.catalog}</h3>
      {available.length === 0 ? (
        <p class="empty">{s.noCatalog}</p>
      ) : (
        <ul class="cards">
          {available.map((a) => (
            <InstallCard
              key={a._id}
              app={a}
              slug={slug}
              onInstalled={(value, app) => {
                setCopied(false);
                setToken({ value, app });
                void load();
              }}
            />
          ))}
        </ul>
      )}
      <Dialog open={token !== null} title={s.tokenTitle(token?.app ?? '')} onClose={() => setToken(null)}>
        <p>{s.tokenOnce}</p>
        <label for="app-token" class="sr-only">
          {s.tokenLabel}
        </label>
        <textarea id="app-token" class="token-box" readOnly value={token?.value ?? ''} data-testid="app-token" />
        <div class="form-actions">
          <button type="button" class="btn primary" onClick={() => void copy()}>
            {copied ? s.copied : s.copy}
          </button>
          <button type="button" class="btn" onClick={() => setToken(null)}>
            {s.tokenDone}
          </button>
        </div>
      </Dialog>
    </section>
  );
}
