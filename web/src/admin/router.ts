/**
 * A small History API router for the panel (paths under `/admin`). `navigate` pushes a path; links
 * rendered with `Link` do it without a reload.
 */
import { useEffect, useState } from 'preact/hooks';

const listeners = new Set<() => void>();

export function navigate(path: string, { replace = false } = {}) {
  if (path === location.pathname + location.search) return;
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  listeners.forEach((l) => l());
}

addEventListener('popstate', () => listeners.forEach((l) => l()));

/** The current path and query; re-renders on navigation. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const [, setTick] = useState(0);
  const rendered = location.pathname + location.search;
  useEffect(() => {
    const l = () => setTick((n) => n + 1);
    listeners.add(l);
    // A child's effect may have navigated before this one subscribed (children's effects run first).
    if (location.pathname + location.search !== rendered) l();
    return () => listeners.delete(l);
  }, []);
  return { path: location.pathname, query: new URLSearchParams(location.search) };
}

/**
 * Matches `pattern` (`/admin/t/:slug/orders/:id`) against `path`; answers the named parts, or null.
 * A trailing `/*` matches the rest of the path.
 */
export function match(pattern: string, path: string): Record<string, string> | null {
  const wild = pattern.endsWith('/*');
  const parts = (wild ? pattern.slice(0, -2) : pattern).split('/').filter(Boolean);
  const segments = path.split('/').filter(Boolean);
  if (wild ? segments.length < parts.length : segments.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (const [i, part] of parts.entries()) {
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(segments[i]);
    else if (part !== segments[i]) return null;
  }
  if (wild) params['*'] = segments.slice(parts.length).join('/');
  return params;
}
