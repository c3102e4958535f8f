import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './app.js';

/**
 * Every route of the spec sections built so far is served and documented in /openapi.json with its
 * request and response schemas. Add a section here when its issue lands.
 */
const DONE_SECTIONS = ['4.1', '4.2', '4.3', '4.4', '4.5', '4.6', '4.7', '4.8', '4.9', '4.10', '4.11', '4.12', '4.13', '4.14'];
/** Sections built in part so far: the routes of each that are done. */
const DONE_PARTS: Record<string, (path: string) => boolean> = {};
const EXTRA_ROUTES = [{ method: 'POST', path: '/api/gateway-a/webhook' }];
const SPEC = new URL('../../shared/spec/endpoints.json', import.meta.url);

const specFound = existsSync(SPEC);
/** `CI` set (and not `false` or `0`), as CI services and `.ci/run` do. */
const inCi = !!process.env.CI && !['false', '0'].includes(process.env.CI.toLowerCase());
/** Why the check cannot run here; in CI (the `CI` variable set) that is a failure, not a skip. */
const MISSING = `${SPEC.pathname} not found: the spec lives in ../shared next to this repository`;

describe('spec coverage', () => {
  let t: TestApp | undefined;
  beforeAll(async () => {
    if (specFound) t = await createTestApp();
  });
  afterAll(() => t?.close());

  it('documents every route of the finished sections', async (ctx) => {
    if (!specFound) {
      if (inCi) throw new Error(`${MISSING}; CI is set, so this check must run`);
      console.warn(`spec coverage skipped: ${MISSING} (with CI set this fails)`);
      ctx.skip(`${MISSING} (with CI set this fails)`);
    }
    const spec = JSON.parse(readFileSync(SPEC, 'utf8')) as { method: string; path: string; section: string }[];
    const done = (r: { path: string; section: string }) => DONE_SECTIONS.includes(r.section) || (DONE_PARTS[r.section]?.(r.path) ?? false);
    const routes = [...spec.filter(done), ...EXTRA_ROUTES];
    expect(routes.length).toBeGreaterThan(40);
    const doc = (await t!.app.inject({ url: '/openapi.json' })).json();
    const missing: string[] = [];
    for (const r of routes) {
      const path = r.path.replace(/:([A-Za-z]+)/g, '{$1}');
      const op = doc.paths[path]?.[r.method.toLowerCase()];
      if (!op) missing.push(`${r.method} ${r.path}`);
      else if (!Object.keys(op.responses ?? {}).some((code) => code.startsWith('2'))) missing.push(`${r.method} ${r.path} (no success response schema)`);
    }
    expect(missing).toEqual([]);
  });
});
