import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.js';
import { installErrorHandling } from './http.js';
import { webPages } from './web.js';

/** A bare Fastify with the web plugin on `distDir` (the page routes need nothing else). */
async function webApp(distDir: string, connectOrigins?: string[]): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  installErrorHandling(app);
  await app.register(webPages, { distDir, connectOrigins });
  await app.ready();
  return app;
}

describe('web pages', () => {
  let dir: string;
  let built: FastifyInstance;
  let missing: FastifyInstance;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'web-dist-'));
    const dist = join(dir, 'dist');
    mkdirSync(join(dist, 'assets'), { recursive: true });
    writeFileSync(join(dist, 'menu.html'), '<!doctype html><title>Cardápio</title><div id="app"></div>');
    writeFileSync(join(dist, 'kitchen.html'), '<!doctype html><title>Cozinha</title>');
    writeFileSync(join(dist, 'admin.html'), '<!doctype html><title>Painel</title>');
    writeFileSync(join(dist, 'assets', 'menu-AbC123.js'), 'console.log("menu");');
    writeFileSync(join(dist, 'assets', 'big-AbC123.js'), `/* ${'cardápio '.repeat(2000)} */`);
    writeFileSync(join(dir, 'secret.txt'), 'outside the dist dir');
    built = await webApp(dist);
    missing = await webApp(join(dir, 'nowhere'));
  });
  afterAll(async () => {
    await built?.close();
    await missing?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the menu page as HTML with its security and cache headers', async () => {
    const res = await built.inject({ url: '/t/demo/b/salao/menu?table=4', headers: { host: 'example.test:3000' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('Cardápio');
    expect(res.headers['cache-control']).toBe('no-cache');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain(`default-src 'self'`);
    expect(csp).toContain(`img-src 'self' data:`);
    expect(csp).toContain(`connect-src 'self' ws://example.test:3000 wss://example.test:3000`);
    expect(csp).toContain(`frame-ancestors 'none'`);
  });

  it('allows the origin of an absolute connect URL (the wallet gateway), not a same-origin path', async () => {
    const app = await webApp(join(dir, 'dist'), ['https://wallet.example.test:8443/v1/card_tokens', '/__sim/wallet/v1/card_tokens', 'javascript:alert(1)']);
    try {
      const res = await app.inject({ url: '/t/demo/b/salao/menu', headers: { host: 'example.test:3000' } });
      expect(res.statusCode).toBe(200);
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain(`connect-src 'self' ws://example.test:3000 wss://example.test:3000 https://wallet.example.test:8443;`);
      expect(csp).not.toContain('/__sim');
      expect(csp).not.toContain('javascript');
    } finally {
      await app.close();
    }
  });

  it('compresses what the browser accepts, and sends it plain to a client that asks for nothing', async () => {
    const br = await built.inject({ url: '/web/assets/big-AbC123.js', headers: { 'accept-encoding': 'br, gzip' } });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.rawPayload.length).toBeLessThan(1000);
    const gzip = await built.inject({ url: '/web/assets/big-AbC123.js', headers: { 'accept-encoding': 'gzip' } });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    const plain = await built.inject({ url: '/web/assets/big-AbC123.js' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toContain('cardápio cardápio');
  });

  it('serves the panel for every path under /admin', async () => {
    for (const url of ['/admin', '/admin/login', '/admin/t/demo/floor/tables/abc']) {
      const res = await built.inject({ url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toContain('Painel');
      expect(res.headers['content-security-policy'], url).toContain(`script-src 'self'`);
    }
  });

  it('serves the kitchen page', async () => {
    const res = await built.inject({ url: '/t/demo/kitchen' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Cozinha');
  });

  it('leaves an odd Host header out of the policy', async () => {
    const res = await built.inject({ url: '/t/demo/kitchen', headers: { host: 'evil.test; script-src *' } });
    expect(res.statusCode).toBe(200);
    expect(String(res.headers['content-security-policy'])).not.toContain('evil');
  });

  it('serves hashed assets with a long cache, HTML under /web/ without', async () => {
    const asset = await built.inject({ url: '/web/assets/menu-AbC123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const html = await built.inject({ url: '/web/menu.html' });
    expect(html.statusCode).toBe(200);
    expect(html.headers['cache-control']).toBe('no-cache');
    expect(html.headers['content-security-policy']).toBeDefined();
    expect((await built.inject({ url: '/web/assets/nope.js' })).statusCode).toBe(404);
  });

  it('refuses paths outside the dist dir', async () => {
    for (const url of [
      '/web/../secret.txt',
      '/web/%2e%2e/secret.txt',
      '/web/%2E%2E%2Fsecret.txt',
      '/web/..%2fsecret.txt',
      '/web/assets/..%2f..%2fsecret.txt',
      '/web/../package.json',
      '/web/%2e%2e/%2e%2e/package.json',
    ]) {
      const res = await built.inject({ url });
      expect(res.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, url).toBeLessThan(500);
      expect(res.body, url).not.toContain('outside the dist dir');
      expect(res.body, url).not.toContain('restaurant-ops');
    }
  });

  it('answers 503 with a hint when the front end was not built', async () => {
    for (const url of ['/t/demo/b/salao/menu', '/t/demo/kitchen']) {
      const res = await missing.inject({ url });
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      expect(res.body).toBe('Front end not built: run npm run build');
    }
    expect((await missing.inject({ url: '/web/assets/menu-AbC123.js' })).statusCode).toBe(404);
  });
});

describe('web pages in the app', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  it('mounts the page routes without an auth rule, hidden from the OpenAPI document', async () => {
    const res = await t.app.inject({ url: '/t/any-tenant/b/any-pdv/menu?table=1' });
    // 200 with a build (npm run build), 503 without: never 401 or 404.
    expect([200, 503]).toContain(res.statusCode);
    const doc = (await t.app.inject({ url: '/openapi.json' })).json() as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/web') || p.endsWith('/kitchen') || p.endsWith('/menu'))).toEqual([]);
  });
});
