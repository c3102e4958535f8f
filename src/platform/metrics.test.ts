import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/app.js';
import { installApp, makePublishedApp } from '../../test/apps.js';
import { makeMenuItem, makeSuperadmin, makeTenantWithTeam, type TestUser } from '../../test/factories.js';
import type { App } from '../app.js';
import { signProviderAPayload } from '../integrations/provider-a/index.js';

const TEST_QUEUE = 'test.metrics-depth';
/** Runs as told: `fail` throws, `hang` waits for its abort (the 1 s limit) and then ends as if it had succeeded. */
const RUNS_QUEUE = 'test.metrics-runs';

let t: TestApp;
let sa: TestUser;
beforeAll(async () => {
  t = await createTestApp(
    { webhooksAllowPrivateTargets: true },
    {
      beforeReady: (app) => {
        app.jobs.register(TEST_QUEUE, async () => {});
        app.jobs.register<{ fail?: boolean; hang?: boolean }>(
          RUNS_QUEUE,
          async (data, job) => {
            if (data.fail) throw new Error('told to fail');
            if (data.hang) await new Promise((resolve) => job.signal.addEventListener('abort', resolve));
          },
          { retryLimit: 1, retryDelay: 1, expireInSeconds: 1 },
        );
      },
    },
  );
  sa = await makeSuperadmin(t.app);
});
afterAll(() => t.close());

/** One sample of the text format: `name{label="value",...} number`. */
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

interface Sample { name: string; labels: Record<string, string>; value: number }

/** GET /metrics from loopback, parsed line by line (HELP and TYPE comments checked for shape, samples kept). */
async function scrape(app: App = t.app): Promise<Sample[]> {
  const res = await app.inject({ url: '/metrics', remoteAddress: '127.0.0.1' });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  const samples: Sample[] = [];
  for (const line of res.body.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      expect(line).toMatch(/^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .+$/);
      continue;
    }
    const m = SAMPLE.exec(line);
    expect(m, line).not.toBeNull();
    const labels = Object.fromEntries([...(m![2] ?? '').matchAll(LABEL)].map((l) => [l[1], l[2]]));
    samples.push({ name: m![1], labels, value: Number(m![3]) });
  }
  return samples;
}

/** The value of the sample with exactly these labels (0 when absent: a counter not yet incremented). */
function valueOf(samples: Sample[], name: string, labels: Record<string, string>): number {
  const same = (s: Sample) => Object.keys(labels).length === Object.keys(s.labels).length && Object.entries(labels).every(([k, v]) => s.labels[k] === v);
  const found = samples.filter((s) => s.name === name && same(s));
  expect(found.length).toBeLessThanOrEqual(1);
  return found[0]?.value ?? 0;
}

describe('GET /metrics', () => {
  it('counts requests per route pattern and status code, never per raw URL', async () => {
    const team = await makeTenantWithTeam(t.app);
    const missing = 'abcdef0123456789abcdef01';
    const strange = `nothing-here-${randomUUID()}`;
    const count = (s: Sample[], route: string, status: string, method = 'GET') =>
      valueOf(s, 'http_request_duration_seconds_count', { method, route, status_code: status });
    const before = await scrape();

    expect((await t.app.inject({ url: `/t/${team.slug}/tables`, headers: team.admin.headers })).statusCode).toBe(200);
    const res404 = await t.app.inject({ method: 'PUT', url: `/t/${team.slug}/tables/${missing}`, headers: team.admin.headers, payload: { number: 99 } });
    expect(res404.statusCode, res404.body).toBe(404);
    expect((await t.app.inject({ url: `/${strange}` })).statusCode).toBe(404);

    const after = await scrape();
    expect(count(after, '/t/:slug/tables', '200') - count(before, '/t/:slug/tables', '200')).toBe(1);
    expect(count(after, '/t/:slug/tables/:id', '404', 'PUT') - count(before, '/t/:slug/tables/:id', '404', 'PUT')).toBe(1);
    expect(count(after, 'unmatched', '404') - count(before, 'unmatched', '404')).toBe(1);
    // The histogram's buckets agree with its count.
    const inf = valueOf(after, 'http_request_duration_seconds_bucket', { method: 'GET', route: '/t/:slug/tables', status_code: '200', le: '+Inf' });
    expect(inf).toBe(count(after, '/t/:slug/tables', '200'));
    // No label carries a raw URL: no id, slug or unmatched path.
    const values = after.flatMap((s) => Object.values(s.labels));
    for (const raw of [missing, team.slug, strange]) expect(values.some((v) => v.includes(raw))).toBe(false);
    for (const s of after.filter((x) => x.name.startsWith('http_request_duration_seconds'))) {
      expect(s.labels.route === 'unmatched' || s.labels.route.startsWith('/')).toBe(true);
    }
  });

  it('shows the jobs waiting and delayed per queue, read at each scrape', async () => {
    const depth = (s: Sample[], state: string) => valueOf(s, 'job_queue_depth', { queue: TEST_QUEUE, state });
    const empty = await scrape();
    expect([depth(empty, 'waiting'), depth(empty, 'delayed'), depth(empty, 'active')]).toEqual([0, 0, 0]);
    // Every registered queue has its series, not only the ones with jobs.
    expect(empty.some((s) => s.name === 'job_queue_depth' && s.labels.queue === 'apps.deliver')).toBe(true);

    await t.app.jobs.send(TEST_QUEUE, {});
    await t.app.jobs.send(TEST_QUEUE, {}, { startAfter: 3600 });
    const queued = await scrape();
    expect([depth(queued, 'waiting'), depth(queued, 'delayed')]).toEqual([1, 1]);

    await t.app.jobs.drain({ names: [TEST_QUEUE] });
    const drained = await scrape();
    expect([depth(drained, 'waiting'), depth(drained, 'delayed')]).toEqual([0, 1]);
  });

  it('times job runs per queue and outcome: completed, retried, failed (a run over its limit too)', async () => {
    const runs = (s: Sample[], outcome: string) => valueOf(s, 'job_run_duration_seconds_count', { queue: RUNS_QUEUE, outcome });
    const outcomes = async () => {
      const s = await scrape();
      return { completed: runs(s, 'completed'), retried: runs(s, 'retried'), failed: runs(s, 'failed') };
    };
    expect(await outcomes()).toEqual({ completed: 0, retried: 0, failed: 0 });
    await t.app.jobs.send(RUNS_QUEUE, {});
    await t.app.jobs.send(RUNS_QUEUE, { fail: true });
    // The failing job twice: its first attempt is retried, its second (retryLimit 1) fails for good.
    expect(await t.app.jobs.drain({ names: [RUNS_QUEUE], includeDelayed: true })).toEqual({ runs: 3, completed: 1, failed: 2 });
    expect(await outcomes()).toEqual({ completed: 1, retried: 1, failed: 1 });
    // Over its 1 s limit: failed (retried) when the queue gives up on it, though the handler then returns normally.
    await t.app.jobs.send(RUNS_QUEUE, { hang: true });
    expect(await t.app.jobs.drain({ names: [RUNS_QUEUE], limit: 1 })).toEqual({ runs: 1, completed: 0, failed: 1 });
    const after = await scrape();
    expect({ completed: runs(after, 'completed'), retried: runs(after, 'retried'), failed: runs(after, 'failed') }).toEqual({ completed: 1, retried: 2, failed: 1 });
    // Durations in seconds: the run over its limit lasted at least the limit, and the buckets agree with the count.
    expect(valueOf(after, 'job_run_duration_seconds_sum', { queue: RUNS_QUEUE, outcome: 'retried' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(after, 'job_run_duration_seconds_bucket', { queue: RUNS_QUEUE, outcome: 'retried', le: '+Inf' })).toBe(2);
  });

  it('reports the database pool (PGlite: its one connection)', async () => {
    const s = await scrape();
    const total = valueOf(s, 'db_pool_connections', { state: 'total' });
    if (t.db.url === null) expect(total).toBe(1);
    else {
      expect(total).toBeGreaterThanOrEqual(1);
      expect(valueOf(s, 'db_pool_connections', { state: 'idle' })).toBeLessThanOrEqual(total);
      expect(s.some((x) => x.name === 'db_pool_connections' && x.labels.state === 'waiting')).toBe(true);
    }
  });

  it('keeps prom-client default process metrics', async () => {
    const names = new Set((await scrape()).map((s) => s.name));
    for (const n of ['process_cpu_user_seconds_total', 'process_start_time_seconds', 'nodejs_heap_size_used_bytes']) expect(names.has(n), n).toBe(true);
  });

  it('counts webhooks to Apps by outcome: retried, delivered, disabled, failed', async () => {
    const team = await makeTenantWithTeam(t.app);
    const dish = await makeMenuItem(t.app, team.tenant, { name: 'Moqueca', price: 7450 });
    const script = [500, 200];
    const answers: number[] = [];
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const status = script[Math.min(answers.length, script.length - 1)];
        answers.push(status);
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
      const published = await makePublishedApp(t.app, sa, { scopes: ['orders.read', 'webhooks.subscribe'], webhookUrl: url });
      await installApp(t.app, team, published.slug, ['orders.read', 'webhooks.subscribe']);
      const order = async () => {
        const res = await t.app.inject({
          method: 'POST',
          url: `/t/${team.slug}/orders`,
          headers: team.admin.headers,
          payload: { orderType: 'takeout', paymentMethod: 'pix', customerName: 'Ana', items: [{ menuItem: dish._id, quantity: 1 }] },
        });
        expect(res.statusCode, res.body).toBe(201);
      };
      const outcomes = async () => {
        const s = await scrape();
        return Object.fromEntries(['delivered', 'retried', 'failed', 'disabled'].map((o) => [o, valueOf(s, 'app_webhook_deliveries_total', { outcome: o })]));
      };
      const drain = () => t.app.jobs.drain({ names: ['apps.deliver'], includeDelayed: true });

      const start = await outcomes();
      await order();
      await drain();
      expect(answers).toEqual([500, 200]);
      expect(await outcomes()).toEqual({ ...start, retried: start.retried + 1, delivered: start.delivered + 1 });

      // Every attempt refused (8 attempts: 7 retries, then failed).
      script.splice(0, 2, 503);
      answers.length = 0;
      await order();
      await drain();
      expect(answers).toHaveLength(8);
      expect(await outcomes()).toEqual({ ...start, retried: start.retried + 8, delivered: start.delivered + 1, failed: start.failed + 1 });

      // 410 Gone: the App turns its webhooks off.
      script.splice(0, 1, 410);
      await order();
      await drain();
      expect(await outcomes()).toEqual({ delivered: start.delivered + 1, retried: start.retried + 8, failed: start.failed + 1, disabled: start.disabled + 1 });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('counts delivery platform webhooks by provider and outcome', async () => {
    const team = await makeTenantWithTeam(t.app);
    const sim = t.app.integrations.providerA;
    const secret = sim.simulatorAccount!.webhookSecret!;
    const post = (body: string, key = secret) =>
      t.app.inject({
        method: 'POST',
        url: `/t/${team.slug}/webhooks/provider_a`,
        headers: { 'content-type': 'application/json', 'x-provider-a-hmac-sha256': signProviderAPayload(body, key) },
        payload: body,
      });
    const event = () =>
      JSON.stringify({ id: randomUUID(), code: 'PLC', fullCode: 'PLACED', orderId: `ext-${randomUUID()}`, merchantId: sim.simulatorAccount!.credentials.merchantId, createdAt: new Date().toISOString() });
    const outcome = (s: Sample[], o: string) => valueOf(s, 'delivery_webhooks_received_total', { provider: 'provider_a', outcome: o });
    const before = await scrape();

    expect((await post(event())).statusCode).toBe(404);
    await t.app.services.deliveryIntegrations.create(
      t.app.deps.tenantDb(team.tenant._id),
      { provider: 'provider_a', credentials: sim.simulatorAccount!.credentials, webhookSecret: secret, jwksUrl: null, active: true },
      { skipCheck: true },
    );
    const body = event();
    expect((await post(body)).statusCode).toBe(200);
    expect((await post(body)).json()).toEqual({ deduplicated: true });
    expect((await post(event(), 'not-the-secret')).statusCode).toBe(401);
    expect((await post('{"hello": "world"}')).statusCode).toBe(400);

    const after = await scrape();
    const delta = (o: string) => outcome(after, o) - outcome(before, o);
    expect(['no_integration', 'accepted', 'deduplicated', 'invalid_signature', 'unreadable', 'error'].map(delta)).toEqual([1, 1, 1, 1, 1, 0]);
  });

  it('is hidden from the OpenAPI document', async () => {
    const doc = (await t.app.inject({ url: '/openapi.json' })).json<{ paths: Record<string, unknown> }>();
    expect(Object.keys(doc.paths)).not.toContain('/metrics');
    expect(Object.keys(doc.paths)).toContain('/health');
  });
});

describe('who may read /metrics', () => {
  it('without METRICS_TOKEN: loopback callers only', async () => {
    for (const remoteAddress of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      expect((await t.app.inject({ url: '/metrics', remoteAddress })).statusCode, remoteAddress).toBe(200);
    }
    for (const remoteAddress of ['10.0.0.5', '203.0.113.9', '::ffff:10.1.2.3']) {
      const res = await t.app.inject({ url: '/metrics', remoteAddress });
      expect(res.statusCode, remoteAddress).toBe(403);
      expect(res.json()).toMatchObject({ code: 'metrics_loopback_only' });
      expect(res.body).not.toContain('http_request_duration_seconds');
    }
  });

  describe('with METRICS_TOKEN', () => {
    const token = `metrics-${randomUUID()}`;
    let tt: TestApp;
    beforeAll(async () => {
      tt = await createTestApp({ metricsToken: token });
    });
    afterAll(() => tt.close());

    it('asks every caller, loopback included, for the bearer token', async () => {
      for (const remoteAddress of ['127.0.0.1', '203.0.113.9']) {
        const ok = await tt.app.inject({ url: '/metrics', remoteAddress, headers: { authorization: `Bearer ${token}` } });
        expect(ok.statusCode, remoteAddress).toBe(200);
        expect(ok.body).toMatch(/^# HELP /m);
        for (const authorization of [undefined, `Bearer ${token}x`, `Bearer ${token.slice(0, -1)}`, `Basic ${token}`, token]) {
          const res = await tt.app.inject({ url: '/metrics', remoteAddress, headers: authorization ? { authorization } : {} });
          expect(res.statusCode, `${remoteAddress} ${authorization}`).toBe(401);
          expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
          expect(res.body).not.toContain('http_request_duration_seconds');
        }
      }
    });

    it('has its own registry: requests to another app are not counted here', async () => {
      const mine = await tt.app.inject({ url: '/metrics', remoteAddress: '127.0.0.1', headers: { authorization: `Bearer ${token}` } });
      // The first app served /t/:slug/tables; this one never did.
      expect(mine.body).not.toContain('route="/t/:slug/tables"');
      expect(mine.body).toContain('route="/metrics"');
    });
  });
});
