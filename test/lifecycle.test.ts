import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, type TestDatabase } from './app.js';

/**
 * The real entry point in a child process: first start, logins printed once, SIGTERM with a
 * request in flight, and a restart that keeps the data.
 */
interface Running {
  proc: ChildProcess;
  base: string;
  output: () => string;
  exited: Promise<number | null>;
}

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

function start(): Promise<Running> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    BCRYPT_COST: '12',
    LOG_LEVEL: 'info',
    SUPERADMIN_EMAIL: 'root@example.com',
    SUPERADMIN_PASSWORD: SA_PASSWORD,
    DEMO_PASSWORD,
  };
  if (db?.url) env.DATABASE_URL = db.url;
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start:\n${out}`)), 60_000);
    const check = setInterval(() => {
      const m = /API:\s+(http:\/\/\S+)/.exec(out);
      if (m) {
        clearInterval(check);
        clearTimeout(timer);
        resolve({ proc, base: m[1].replace('localhost', '127.0.0.1'), output: () => out, exited });
      }
    }, 50);
    void exited.then(() => {
      clearInterval(check);
      clearTimeout(timer);
      reject(new Error(`exited early:\n${out}`));
    });
  });
}

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
