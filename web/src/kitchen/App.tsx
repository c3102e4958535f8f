/** The kitchen display: tenant check, login, then the live board. */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, ApiError } from '../shared/api.js';
import { Board } from './Board.js';
import { LoginForm } from './LoginForm.js';
import { Session } from '../shared/session.js';
import { kitchenAccess, type AccessProblem } from './access.js';
import { strings as t } from './strings.js';

interface Storefront {
  tenant: { slug: string; name: string; primaryColor: string | null; businessType: string; kitchenEnabled: boolean; timezone: string };
}

type Phase =
  | { name: 'loading' }
  | { name: 'notFound' }
  | { name: 'failed' }
  | { name: 'unavailable' }
  | { name: 'login'; notice?: string }
  | { name: 'denied'; problem: AccessProblem }
  | { name: 'board'; tenantId: string };

export function App({ slug }: { slug: string }) {
  const [phase, setPhase] = useState<Phase>({ name: 'loading' });
  const [tenant, setTenant] = useState<Storefront['tenant'] | null>(null);
  const session = useMemo(() => new Session(`kitchen.session.${slug}`, () => setPhase({ name: 'login', notice: t.sessionEnded })), [slug]);

  /** After the tenant is known: straight to the board when a stored session still has access. */
  async function enter() {
    if (!session.loggedIn) return setPhase({ name: 'login' });
    try {
      const access = await kitchenAccess(session, slug);
      setPhase(access.ok ? { name: 'board', tenantId: access.tenantId } : { name: 'denied', problem: access.problem });
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) return setPhase({ name: 'login', notice: t.sessionEnded });
      setPhase({ name: 'failed' });
    }
  }

  async function load() {
    setPhase({ name: 'loading' });
    try {
      const store = await api<Storefront>(`/t/${encodeURIComponent(slug)}/storefront`);
      setTenant(store.tenant);
      document.title = t.pageTitle(store.tenant.name);
      if (!store.tenant.kitchenEnabled) return setPhase({ name: 'unavailable' });
      await enter();
    } catch (err) {
      setPhase(err instanceof ApiError && err.status === 404 ? { name: 'notFound' } : { name: 'failed' });
    }
  }

  useEffect(() => {
    if (!slug) setPhase({ name: 'notFound' });
    else void load();
  }, [slug]);

  async function logout() {
    await session.logout();
    setPhase({ name: 'login' });
  }

  const accent = tenant?.primaryColor && /^#[0-9a-fA-F]{3,8}$/.test(tenant.primaryColor) ? tenant.primaryColor : undefined;
  const style = accent ? { '--accent': accent } : undefined;

  if (phase.name === 'board') {
    return (
      <div class="kds" style={style}>
        <Board slug={slug} tenantId={phase.tenantId} tenantName={tenant?.name ?? ''} session={session} onLogout={logout} />
      </div>
    );
  }
  return (
    <div class="kds" style={style}>
      <header class="kds-header">
        <h1 class="kds-title">{tenant ? t.pageTitle(tenant.name) : t.title}</h1>
      </header>
      <main class="kds-center" id="main">
        {phase.name === 'loading' && <p role="status">{t.loading}</p>}
        {phase.name === 'notFound' && <p role="alert">{t.tenantNotFound}</p>}
        {phase.name === 'unavailable' && <p role="status">{t.kitchenUnavailable}</p>}
        {phase.name === 'failed' && (
          <div role="alert">
            <p>{t.loadFailed}</p>
            <button type="button" class="btn" onClick={() => void load()}>
              {t.retry}
            </button>
          </div>
        )}
        {phase.name === 'login' && <LoginForm session={session} notice={phase.notice} onDone={() => void enter()} />}
        {phase.name === 'denied' && (
          <div class="panel">
            <p role="alert">{t[phase.problem]}</p>
            <button type="button" class="btn" onClick={() => void logout()}>
              {t.logout}
            </button>
          </div>
        )}
      </main>
    </div>
  );
}
