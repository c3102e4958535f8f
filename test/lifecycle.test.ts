import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, type TestDatabase } from './app.js';
import { startService, type ServiceProcess } from './service-process.js';

/**
 * The real entry point in a child process: first start, logins printed once, SIGTERM with a
 * request in flight, and a restart that keeps the data.
 */
let db: TestDatabase | null = null;
let dataDir: string;
const SA_PASSWORD = 'super-secret-pass-1';
const DEMO_PASSWORD = 'demo-secret-pass-2';

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ro-life-'));
  // On PostgreSQL the process gets this file's own empty, migrated database.
  if (process.env.DATABASE_URL) db = await createTestDatabase();
  await db?.database.close();
});
afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  await db?.drop();
});

/** The real entry point (`src/main.ts` through tsx, as `npm start`) on this file's data dir or database. */
const start = () =>
  startService({
    role: 'all',
    dataDir,
    databaseUrl: db?.url ?? undefined,
    entry: 'src',
    env: { BCRYPT_COST: '12', LOG_LEVEL: 'info', SUPERADMIN_EMAIL: 'root@example.com', SUPERADMIN_PASSWORD: SA_PASSWORD, DEMO_PASSWORD },
  }).then((p) => ({ ...p, base: p.base! }));
type Running = ServiceProcess & { base: string };

interface LogLine {
  msg?: string;
  reqId?: string;
  res?: { statusCode?: number };
}

/** The JSON log lines the process printed so far (the banner and other text are skipped). */
function logLines(r: Running): LogLine[] {
  return r
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as LogLine];
      } catch {
        return []; // a line still being written
      }
    });
}

const logOf = (r: Running, reqId: string, msg: string) => logLines(r).find((l) => l.reqId === reqId && l.msg === msg);

const post = (base: string, path: string, body: unknown, token?: string) =>
  fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });

describe('npm start', () => {
  it('seeds on first start, drains on SIGTERM and keeps data across a restart', async () => {
    const first = await start();
    expect((await fetch(first.base + '/health')).status).toBe(200);
    expect((await fetch(first.base + '/ready')).status).toBe(200);
    expect((await fetch(first.base + '/openapi.json')).status).toBe(200);
    const out = first.output();
    expect(out).toContain('First start');
    expect(out).toContain('admin@demo.local');
    expect(out).toContain(DEMO_PASSWORD);
    // A password the operator chose is not printed back.
    expect(out).not.toContain(SA_PASSWORD);

    const login = await post(first.base, '/auth/login', { email: 'admin@demo.local', password: DEMO_PASSWORD });
    expect(login.status).toBe(200);
    const { accessToken } = (await login.json()) as { accessToken: string };
    const created = await post(first.base, '/t/demo/users', { email: 'kept@example.com', name: 'Kept', password: 'kept-password', role: 'staff' }, accessToken);
    expect(created.status).toBe(201);

    // SIGTERM goes out once the server has logged this request's arrival (a log line with its
    // request id), so the login (~250 ms of bcrypt) is in flight when the process starts to drain.
    const reqId = 'lifecycle-in-flight-login';
    const inFlight = fetch(first.base + '/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': reqId },
      body: JSON.stringify({ email: 'root@example.com', password: SA_PASSWORD }),
    });
    await vi.waitFor(() => expect(logOf(first, reqId, 'incoming request')).toBeDefined(), { timeout: 10_000, interval: 5 });
    first.proc.kill('SIGTERM');
    const answered = await inFlight;
    expect(answered.status).toBe(200);
    expect(await first.exited, first.output().slice(-3000)).toBe(0);
    // The drain really covered the request: the shutdown began before the request completed.
    const lines = logLines(first);
    const shutdownAt = lines.findIndex((l) => l.msg?.startsWith('shutting down'));
    const completedAt = lines.findIndex((l) => l.reqId === reqId && l.msg === 'request completed');
    expect(shutdownAt, 'a "shutting down" log line').toBeGreaterThanOrEqual(0);
    expect(completedAt, 'the in-flight request completed after the shutdown began').toBeGreaterThan(shutdownAt);
    expect(lines[completedAt].res?.statusCode).toBe(200);
    await expect(fetch(first.base + '/health')).rejects.toThrow();

    // Logs never carry passwords or tokens (the banner above is not a log line).
    const rawLogLines = first.output().split('\n').filter((l) => l.startsWith('{'));
    expect(rawLogLines.length).toBeGreaterThan(0);
    for (const line of rawLogLines) {
      expect(line).not.toContain(DEMO_PASSWORD);
      expect(line).not.toContain(SA_PASSWORD);
      expect(line).not.toContain(accessToken);
      expect(line).not.toContain('kept-password');
    }
    expect(rawLogLines.some((l) => l.includes('"reqId"'))).toBe(true);

    const second = await start();
    try {
      expect(second.output()).not.toContain('First start');
      const again = await post(second.base, '/auth/login', { email: 'kept@example.com', password: 'kept-password' });
      expect(again.status).toBe(200);
    } finally {
      second.proc.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    }
  }, 120_000);
});
