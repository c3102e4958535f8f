import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.js';
import { makeTenantWithTeam } from '../../test/factories.js';
import { parseCorsOrigins } from '../config.js';
import { installErrorHandling } from './http.js';
import { CORS_ALLOWED_HEADERS, CORS_ALLOWED_METHODS, HSTS, installSecurityHeaders } from './security-headers.js';
import { webPages } from './web.js';

const PANEL = 'https://panel.example.com';
const ELSEWHERE = 'https://evil.example.net';

describe('security headers, CORS and body limits', () => {
  let t: TestApp;
  let team: Awaited<ReturnType<typeof makeTenantWithTeam>>;

  beforeAll(async () => {
    t = await createTestApp({ trustProxy: true, corsOrigins: [PANEL] });
    team = await makeTenantWithTeam(t.app);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a JSON answer carries the security headers, no HSTS over plain HTTP and no CORS without an allowed Origin', async () => {
    const res = await t.app.inject({ url: '/auth/me', headers: team.admin.headers });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['cross-origin-resource-policy']).toBe('same-origin');
    expect(res.headers['strict-transport-security']).toBeUndefined();
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('errors get them too (a 404 and a 401)', async () => {
    for (const res of [await t.app.inject({ url: '/no/such/route' }), await t.app.inject({ url: '/auth/me' })]) {
      expect([404, 401]).toContain(res.statusCode);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-frame-options']).toBe('DENY');
    }
  });

  it('HSTS only when the request came over HTTPS through a trusted proxy', async () => {
    const https = await t.app.inject({ url: '/auth/me', headers: { ...team.admin.headers, 'x-forwarded-proto': 'https' } });
    expect(https.headers['strict-transport-security']).toBe(HSTS);

    // Without a trusted proxy the forwarded protocol is not believed.
    const bare = Fastify({ logger: false });
    installSecurityHeaders(bare);
    bare.get('/x', async () => ({ ok: true }));
    try {
      const res = await bare.inject({ url: '/x', headers: { 'x-forwarded-proto': 'https' } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['strict-transport-security']).toBeUndefined();
    } finally {
      await bare.close();
    }
  });

  it('the public developer API: preflight answered for any origin, answers readable cross-origin', async () => {
    const pre = await t.app.inject({
      method: 'OPTIONS',
      url: '/public/v1/orders',
      headers: { origin: ELSEWHERE, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(pre.statusCode).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
    expect(pre.headers['access-control-allow-methods']).toBe(CORS_ALLOWED_METHODS);
    expect(pre.headers['access-control-allow-headers']).toBe(CORS_ALLOWED_HEADERS);
    expect(pre.headers['access-control-max-age']).toBe('600');
    expect(pre.headers['access-control-allow-credentials']).toBeUndefined();

    const res = await t.app.inject({ url: '/public/v1/orders', headers: { origin: ELSEWHERE } });
    expect(res.statusCode).toBe(401);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-expose-headers']).toContain('X-Request-Id');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
  });

  it('the rest of the API: an origin outside CORS_ORIGINS gets no CORS headers, an allowed one is echoed', async () => {
    const url = `/t/${team.slug}/menu/categories`;
    const other = await t.app.inject({ url, headers: { ...team.admin.headers, origin: ELSEWHERE } });
    expect(other.statusCode).toBe(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    expect(other.headers.vary).toContain('Origin');
    const otherPre = await t.app.inject({ method: 'OPTIONS', url, headers: { origin: ELSEWHERE, 'access-control-request-method': 'POST' } });
    expect(otherPre.statusCode).toBe(404);
    expect(otherPre.headers['access-control-allow-origin']).toBeUndefined();

    const panel = await t.app.inject({ url, headers: { ...team.admin.headers, origin: PANEL } });
    expect(panel.statusCode).toBe(200);
    expect(panel.headers['access-control-allow-origin']).toBe(PANEL);
    expect(panel.headers.vary).toContain('Origin');
    expect(panel.headers['access-control-allow-credentials']).toBeUndefined();
    expect(panel.headers['cross-origin-resource-policy']).toBe('same-origin');
    const panelPre = await t.app.inject({
      method: 'OPTIONS',
      url,
      headers: { origin: PANEL, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
    });
    expect(panelPre.statusCode).toBe(204);
    expect(panelPre.headers['access-control-allow-origin']).toBe(PANEL);
    expect(panelPre.headers['access-control-allow-headers']).toBe(CORS_ALLOWED_HEADERS);
  });

  it('a JSON body over 1 MiB on an ordinary route: 413 with the error body, nothing created', async () => {
    const url = `/t/${team.slug}/menu/categories`;
    const body = JSON.stringify({ name: 'Bebidas', description: 'x'.repeat(2 * 1024 * 1024) });
    const res = await t.app.inject({ method: 'POST', url, headers: { ...team.admin.headers, 'content-type': 'application/json' }, payload: body });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ statusCode: 413, error: 'Payload Too Large', message: expect.any(String), code: 'fst_err_ctp_body_too_large' });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const list = await t.app.inject({ url, headers: team.admin.headers });
    expect(list.body).not.toContain('Bebidas');
  });

  it('auth bodies are limited to 16 KiB: a 20 KiB login is refused for size, a 10 KiB one is read', async () => {
    const login = (pad: number) =>
      t.app.inject({ method: 'POST', url: '/auth/login', payload: { email: 'nobody@example.com', password: 'wrong-password', pad: 'x'.repeat(pad) } });
    const big = await login(20 * 1024);
    expect(big.statusCode).toBe(413);
    expect(big.json()).toMatchObject({ statusCode: 413, code: 'fst_err_ctp_body_too_large' });
    const small = await login(10 * 1024);
    expect(small.statusCode).not.toBe(413);
    expect([400, 401]).toContain(small.statusCode);
  });

  it('delivery webhooks are limited to 256 KiB (real events are a few KB)', async () => {
    const url = `/t/${team.slug}/webhooks/provider_a`;
    const res = await t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ pad: 'x'.repeat(300 * 1024) }) });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ statusCode: 413, code: 'fst_err_ctp_body_too_large' });
  });
});

describe('security headers on the HTML pages', () => {
  let dir: string;
  const app = Fastify({ logger: false });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'web-sec-'));
    mkdirSync(join(dir, 'assets'), { recursive: true });
    writeFileSync(join(dir, 'kitchen.html'), '<!doctype html><title>Cozinha</title>');
    installErrorHandling(app);
    installSecurityHeaders(app);
    await app.register(webPages, { distDir: dir });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a page keeps its own Referrer-Policy and relies on frame-ancestors instead of X-Frame-Options', async () => {
    const res = await app.inject({ url: '/t/demo/kitchen' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['referrer-policy']).toBe('same-origin');
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['x-frame-options']).toBeUndefined();
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cross-origin-resource-policy']).toBe('same-origin');
  });
});

describe('CORS_ORIGINS', () => {
  it('reads comma-separated origins and refuses anything that is not one', () => {
    expect(parseCorsOrigins(undefined)).toEqual([]);
    expect(parseCorsOrigins(' https://panel.example.com , http://localhost:5173 ')).toEqual(['https://panel.example.com', 'http://localhost:5173']);
    expect(() => parseCorsOrigins('https://panel.example.com/admin')).toThrow(/CORS_ORIGINS/);
    expect(() => parseCorsOrigins('*')).toThrow(/CORS_ORIGINS/);
    expect(() => parseCorsOrigins('ftp://files.example.com')).toThrow(/CORS_ORIGINS/);
  });
});
