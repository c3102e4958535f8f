/** The panel's top level: the login pages, the tenant choice, and the shell of the chosen tenant. */
import { useEffect, useState } from 'preact/hooks';
import { api as plain } from '../shared/api.js';
import type { Me } from '../shared/session.js';
import { ForgotPage, LoginPage } from './AuthPages.js';
import { match, navigate, useLocation } from './router.js';
import { onSessionEnded, session } from './session.js';
import { Shell, type Membership } from './Shell.js';
import { strings as t } from './strings.js';
import type { Role, TenantInfo } from './types.js';
import { setTimeZone } from './ui/format.js';
import { Link } from './ui/Link.js';

interface Storefront {
  tenant: { slug: string; name: string; primaryColor: string | null; businessType: TenantInfo['businessType']; timezone: string };
}

/** The user's tenants: their memberships, and for a superadmin every tenant (as superadmin). */
async function loadMemberships(me: Me): Promise<Membership[]> {
  const own: Membership[] = me.tenants.map((m) => ({ ...m, role: m.role as Role }));
  if (!me.user.isSuperadmin) return own;
  const all = await session.request<{ _id: string; slug: string; name: string; isActive: boolean }[]>('/api/superadmin/tenants');
  return [...own, ...all.filter((x) => !own.some((m) => m.slug === x.slug)).map((x) => ({ ...x, role: 'superadmin' as Role }))];
}

function TenantPicker({ memberships }: { memberships: Membership[] }) {
  useEffect(() => {
    if (memberships.length === 1) navigate(`/admin/t/${memberships[0].slug}`, { replace: true });
  }, [memberships]);
  return (
    <main class="auth" id="main">
      <div class="card auth-card">
        <h1>{t.chooseTenant}</h1>
        {memberships.length === 0 ? (
          <p class="empty">{t.noTenants}</p>
        ) : (
          <ul class="tenant-list">
            {memberships.map((m) => (
              <li key={m.slug}>
                <Link href={`/admin/t/${m.slug}`} class="btn wide">
                  {m.name} · {t.roles[m.role]}
                  {m.isActive ? '' : ` (${t.inactiveTenant})`}
                </Link>
              </li>
            ))}
          </ul>
        )}
        <button type="button" class="btn" onClick={() => void session.logout().then(() => navigate('/admin/login'))}>
          {t.logout}
        </button>
      </div>
    </main>
  );
}

/** Replaces the location once rendered (navigating during a render would miss the router's listener). */
function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}

export function App() {
  const { path, query } = useLocation();
  const [me, setMe] = useState<{ name: string; memberships: Membership[] } | null>(null);
  const [tenant, setTenant] = useState<TenantInfo | null>(null);
  const [failed, setFailed] = useState(false);
  const [ended, setEnded] = useState(false);
  const tenantPath = match('/admin/t/:slug/*', path) ?? match('/admin/t/:slug', path);
  const slug = tenantPath?.slug ?? null;
  const publicPage = path === '/admin/login' || path === '/admin/forgot';

  useEffect(
    () =>
      onSessionEnded(() => {
        setMe(null);
        setEnded(true);
        navigate(`/admin/login?next=${encodeURIComponent(location.pathname)}`);
      }),
    [],
  );

  // Logged in: who, and their tenants (again after each login).
  useEffect(() => {
    if (publicPage || !session.loggedIn || me) return;
    setFailed(false);
    session
      .me()
      .then(async (m) => setMe({ name: m.user.name, memberships: await loadMemberships(m) }))
      .catch(() => setFailed(true));
  }, [publicPage, me, session.loggedIn]);

  // The chosen tenant's public facts (business type, time zone, colour).
  const membership = slug ? me?.memberships.find((m) => m.slug === slug) : undefined;
  useEffect(() => {
    if (!membership || tenant?.slug === membership.slug) return;
    plain<Storefront>(`/t/${encodeURIComponent(membership.slug)}/storefront`)
      .then((s) => {
        setTimeZone(s.tenant.timezone);
        setTenant({ _id: membership._id, ...s.tenant });
      })
      .catch(() => setFailed(true));
  }, [membership?.slug]);

  if (path === '/admin/forgot') return <ForgotPage />;
  if (path === '/admin/login' || !session.loggedIn) {
    if (path !== '/admin/login') return <Redirect to={`/admin/login?next=${encodeURIComponent(path)}`} />;
    const next = query.get('next');
    const notice = ended ? t.sessionEnded : undefined;
    return <LoginPage notice={notice} next={next && next.startsWith('/admin') ? next : '/admin'} />;
  }
  if (failed) {
    return (
      <main class="auth" id="main">
        <p role="alert">
          {t.loadFailed}{' '}
          <button type="button" class="btn" onClick={() => location.reload()}>
            {t.retry}
          </button>
        </p>
      </main>
    );
  }
  if (!me) return <p aria-busy="true">{t.loading}</p>;
  if (!slug) return <TenantPicker memberships={me.memberships} />;
  if (!membership) {
    return (
      <main class="auth" id="main">
        <p role="alert">{t.notMember}</p>
        <Link href="/admin">{t.chooseTenant}</Link>
      </main>
    );
  }
  if (!tenant || tenant.slug !== slug) return <p aria-busy="true">{t.loading}</p>;
  return (
    <Shell
      tenant={tenant}
      role={membership.role}
      memberships={me.memberships}
      userName={me.name}
      rest={tenantPath?.['*'] ?? ''}
      query={query}
      onLogout={() => {
        void session.logout().then(() => {
          setMe(null);
          navigate('/admin/login');
        });
      }}
    />
  );
}
