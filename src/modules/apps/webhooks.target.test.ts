import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installApp, makePublishedApp } from '../../../test/apps.js';
import { createTestApp, type TestApp } from '../../../test/app.js';
import { makeMenuItem, makeSuperadmin, makeTenantWithTeam } from '../../../test/factories.js';
import { appsJobs } from './apps.jobs.js';
import { DEFAULT_RETRY_DELAYS_SECONDS, MAX_RETRY_AFTER_SECONDS, parseRetryAfter } from './webhooks.service.js';
import { signingKey, toWhsec, webhookHeaders } from './webhooks.signature.js';
import { checkTarget, classifyAddress, parseV6, postJson, TargetRefused } from './webhooks.target.js';

describe('address classification', () => {
  it.each([
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.10', 'private'],
    ['169.254.169.254', 'link-local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'private'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['64:ff9b::192.168.0.1', 'private'],
    ['2002:a00:1::', 'private'],
    ['::127.0.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['not an address', 'reserved'],
  ])('%s is %s', (address, cls) => {
    expect(classifyAddress(address)).toBe(cls);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '192.169.0.1', '2606:4700:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8'])(
    '%s is public',
    (address) => {
      expect(classifyAddress(address)).toBeNull();
    },
  );

  it('parses IPv6 forms to the same 16 bytes', () => {
    const loopback = [...Array(15).fill(0), 1];
    expect(parseV6('::1')).toEqual(loopback);
    expect(parseV6('[::1]')).toEqual(loopback);
    expect(parseV6('0:0:0:0:0:0:0:1')).toEqual(loopback);
    expect(parseV6('::ffff:1.2.3.4')).toEqual(parseV6('::ffff:102:304'));
    expect(parseV6('1::2::3')).toBeNull();
    expect(parseV6('1.2.3.4')).toBeNull();
  });
});

describe('checkTarget', () => {
  const resolveTo = (...addresses: string[]) => async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it('refuses a host that resolves to a private address, any of them, unless allowed', async () => {
    await expect(checkTarget('https://hooks.example.test/x', { allowPrivate: false, resolve: resolveTo('10.0.0.5') })).rejects.toThrow(/10\.0\.0\.5 \(private\)/);
    await expect(checkTarget('https://hooks.example.test/x', { allowPrivate: false, resolve: resolveTo('93.184.216.34', '::1') })).rejects.toThrow(TargetRefused);
    await expect(checkTarget('http://127.0.0.1:8080/x', { allowPrivate: false })).rejects.toThrow(/loopback/);
    await expect(checkTarget('http://[::ffff:169.254.169.254]/latest', { allowPrivate: false })).rejects.toThrow(/link-local/);
    await expect(checkTarget('http://localhost:1/x', { allowPrivate: false })).rejects.toThrow(TargetRefused);
    const ok = await checkTarget('https://hooks.example.test/x', { allowPrivate: false, resolve: resolveTo('93.184.216.34') });
    expect(ok).toMatchObject({ address: '93.184.216.34', family: 4 });
    expect(await checkTarget('http://127.0.0.1:8080/x', { allowPrivate: true })).toMatchObject({ address: '127.0.0.1', family: 4 });
  });

  it('refuses other schemes and credentials in the URL; a name that does not resolve is a retryable error', async () => {
    await expect(checkTarget('ftp://hooks.example.test/', { allowPrivate: true })).rejects.toThrow(TargetRefused);
    await expect(checkTarget('https://user:pw@hooks.example.test/', { allowPrivate: true })).rejects.toThrow(TargetRefused);
    await expect(checkTarget('nonsense', { allowPrivate: true })).rejects.toThrow(TargetRefused);
    const failing = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.test'), { code: 'ENOTFOUND' });
    };
    const err = await checkTarget('https://nowhere.test/', { allowPrivate: false, resolve: failing }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(TargetRefused);
  });
});

describe('postJson', () => {
  let port: number;
  const seen: Array<{ host?: string; headers: IncomingHttpHeaders }> = [];
  const server = createServer((req, res) => {
    seen.push({ host: req.headers.host, headers: req.headers });
    if (req.url === '/slow') return; // never answers
    res.writeHead(503, { 'retry-after': '30' });
    res.end('busy');
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it('connects to the checked address, whatever the name resolves to later, and keeps the URL\'s Host', async () => {
    const target = await checkTarget(`http://hooks.example.test:${port}/in`, { allowPrivate: true, resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    const res = await postJson(target, { 'content-type': 'application/json' }, '{}', 2_000);
    expect(res).toEqual({ statusCode: 503, retryAfter: '30' });
    expect(seen.at(-1)!.host).toBe(`hooks.example.test:${port}`);
  });

  it('gives up after the timeout', async () => {
    const target = await checkTarget(`http://127.0.0.1:${port}/slow`, { allowPrivate: true });
    await expect(postJson(target, {}, '{}', 200)).rejects.toThrow('no answer within 200 ms');
  });
});

describe('signature and Retry-After', () => {
  const hex = 'a1'.repeat(32);

  it('signs with the 32 key bytes, as the standardwebhooks package verifies with whsec_<base64>', () => {
    expect(toWhsec(hex)).toBe(`whsec_${Buffer.from(hex, 'hex').toString('base64')}`);
    const body = '{"id":"evt_1","type":"order.created"}';
    const ts = Math.floor(Date.now() / 1000);
    const headers = webhookHeaders(signingKey(hex), 'evt_1', ts, body);
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(toWhsec(hex)).verify(body, headers)).toEqual({ id: 'evt_1', type: 'order.created' });
    // The 64 ASCII characters as the key would be another key.
    expect(() => new Webhook(hex, { format: 'raw' }).verify(body, headers)).toThrow();
    expect(() => signingKey('short')).toThrow();
  });

  it('reads Retry-After as seconds or an HTTP date, capped at a day', () => {
    const now = new Date('2026-05-01T12:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter('Fri, 01 May 2026 13:00:00 GMT', now)).toBe(3600);
    expect(parseRetryAfter('Fri, 01 May 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('999999', now)).toBe(MAX_RETRY_AFTER_SECONDS);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
    // The default schedule: 8 attempts over about a day.
    const total = DEFAULT_RETRY_DELAYS_SECONDS.reduce((a, b) => a + b, 0);
    expect(DEFAULT_RETRY_DELAYS_SECONDS).toHaveLength(7);
    expect(total / 3600).toBeGreaterThan(24);
    expect(total / 3600).toBeLessThan(30);
  });
});

describe('with WEBHOOKS_ALLOW_PRIVATE_TARGETS off (the default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('a webhook URL on a loopback address is refused: one failed attempt, nothing sent, no retry', async () => {
    expect(t.app.deps.config.webhooksAllowPrivateTargets).toBeFalsy();
    let hits = 0;
    const receiver = createServer((_req, res) => {
      hits++;
      res.end();
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    // The receiver is up: it is the address that is refused, not a dead end.
    expect((await fetch(url, { method: 'POST' })).status).toBe(200);
    hits = 0;

    const sa = await makeSuperadmin(t.app);
    const team = await makeTenantWithTeam(t.app);
    const app = await makePublishedApp(t.app, sa, { scopes: ['orders.read', 'webhooks.subscribe'], webhookUrl: url });
    const inst = await installApp(t.app, team, app.slug, ['webhooks.subscribe']);
    const dish = await makeMenuItem(t.app, team.tenant);
    const placed = await t.app.inject({
      method: 'POST',
      url: `/t/${team.slug}/orders`,
      headers: team.admin.headers,
      payload: { orderType: 'takeout', paymentMethod: 'pix', customerName: 'Ana', items: [{ menuItem: dish._id, quantity: 1 }] },
    });
    expect(placed.statusCode, placed.body).toBe(201);
    const drained = await t.app.jobs.drain({ names: [appsJobs.deliver], includeDelayed: true });
    expect(drained.runs).toBe(1);

    const log = await t.app.inject({ url: `/t/${team.slug}/admin/marketplace/installations/${inst.installation._id}/deliveries`, headers: team.admin.headers });
    expect(log.statusCode, log.body).toBe(200);
    const [d] = log.json().items;
    expect(d).toMatchObject({ status: 'failed', attemptCount: 1, nextAttemptAt: null });
    expect(d.attempts[0]).toMatchObject({ statusCode: null, error: expect.stringMatching(/127\.0\.0\.1 \(loopback\).*WEBHOOKS_ALLOW_PRIVATE_TARGETS/) });
    expect(hits).toBe(0);
    await new Promise((r) => receiver.close(r));
  });
});
