/**
 * The logged-in panel of one tenant: header (tenant, switcher, user, logout), the role's menu by area,
 * and the page of the path, loaded on first visit (each page is its own chunk).
 */
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { allows, menuFor, ROUTES } from './routes.js';
import { match, navigate } from './router.js';
import { strings as t } from './strings.js';
import type { PageProps, PanelRoute, Role, Section, TenantInfo } from './types.js';
import { Link } from './ui/Link.js';

export interface Membership {
  _id: string;
  slug: string;
  name: string;
  isActive: boolean;
  role: Role;
}

const SECTIONS: Section[] = ['floor', 'manager', 'stock', 'books', 'settings'];

/** The page of `rest` (the path after `/admin/t/:slug/`), with its params. */
function resolve(rest: string): { route: PanelRoute; params: Record<string, string> } | null {
  for (const route of ROUTES) {
    const params = match(`/${route.path}`, `/${rest}`);
    if (params) return { route, params };
  }
  return null;
}

const loaded = new Map<PanelRoute, ComponentType<PageProps>>();

function PageHost({ route, props }: { route: PanelRoute; props: PageProps }) {
  const [Page, setPage] = useState<ComponentType<PageProps> | null>(() => loaded.get(route) ?? null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    if (loaded.has(route)) return setPage(() => loaded.get(route)!);
    setPage(null);
    setFailed(false);
    route
      .load()
      .then((m) => {
        loaded.set(route, m.default);
        setPage(() => m.default);
      })
      .catch(() => setFailed(true));
  }, [route]);
  if (failed) {
    return (
      <p role="alert">
        {t.loadFailed}{' '}
        <button type="button" class="btn" onClick={() => location.reload()}>
          {t.retry}
        </button>
      </p>
    );
  }
  if (!Page) return <p aria-busy="true">{t.loading}</p>;
  return <Page {...props} />;
}

function Home({ role, userName, slug }: { role: Role; userName: string; slug: string }) {
  const menu = menuFor(role);
  return (
    <>
      <h1>{t.homeHeading(userName)}</h1>
      {menu.length === 0 ? (
        <p class="empty">{t.homeNothing}</p>
      ) : (
        <>
          <p>{t.homeIntro}</p>
          <ul class="home-links">
            {menu.map((r) => (
              <li key={r.path}>
                <Link href={`/admin/t/${slug}/${r.path}`} class="card home-link">
                  <span class="home-section">{t.sections[r.section]}</span>
                  <strong>{r.title}</strong>
                </Link>
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}

export function Shell({
  tenant,
  role,
  memberships,
  userName,
  rest,
  query,
  onLogout,
}: {
  tenant: TenantInfo;
  role: Role;
  memberships: Membership[];
  userName: string;
  rest: string;
  query: URLSearchParams;
  onLogout: () => void;
}) {
  const [menuOpen, setMenuOpen] = useState(false);
  const slug = tenant.slug;
  const found = rest ? resolve(rest) : null;
  const menu = menuFor(role);
  useEffect(() => {
    document.title = `${found?.route.title ?? t.home} · ${tenant.name}`;
    setMenuOpen(false);
  }, [rest, tenant.name]);

  return (
    <div class="shell">
      <a class="skip" href="#main">
        {t.skipToContent}
      </a>
      <header class="topbar">
        <button type="button" class="btn menu-toggle" aria-expanded={menuOpen} aria-controls="panel-nav" onClick={() => setMenuOpen(!menuOpen)}>
          {t.menu}
        </button>
        <Link href={`/admin/t/${slug}`} class="brand">
          {tenant.name}
        </Link>
        {memberships.length > 1 && (
          <label class="switcher">
            <span class="sr-only">{t.switchTenant}</span>
            <select value={slug} onChange={(e) => navigate(`/admin/t/${e.currentTarget.value}`)}>
              {memberships.map((m) => (
                <option key={m.slug} value={m.slug}>
                  {m.name}
                  {m.isActive ? '' : ` (${t.inactiveTenant})`}
                </option>
              ))}
            </select>
          </label>
        )}
        <span class="user">
          {userName} · {t.roles[role]}
        </span>
        <button type="button" class="btn" onClick={onLogout}>
          {t.logout}
        </button>
      </header>
      <div class="body">
        <nav id="panel-nav" class={`sidenav${menuOpen ? ' open' : ''}`} aria-label={t.menu}>
          <Link href={`/admin/t/${slug}`} current={!rest}>
            {t.home}
          </Link>
          {SECTIONS.map((section) => {
            const items = menu.filter((r) => r.section === section);
            if (!items.length) return null;
            return (
              <div key={section} class="nav-group">
                <h2 class="nav-title">{t.sections[section]}</h2>
                {items.map((r) => (
                  <Link key={r.path} href={`/admin/t/${slug}/${r.path}`} current={rest === r.path}>
                    {r.title}
                  </Link>
                ))}
              </div>
            );
          })}
        </nav>
        <main id="main" class="content" tabIndex={-1}>
          {!rest ? (
            <Home role={role} userName={userName} slug={slug} />
          ) : !found ? (
            <p role="alert">{t.notFound}</p>
          ) : !allows(found.route, role) ? (
            <p role="alert">{t.forbidden}</p>
          ) : (
            <PageHost route={found.route} props={{ slug, tenant, role, params: found.params, query }} />
          )}
        </main>
      </div>
    </div>
  );
}
