import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLogFormat } from '../src/config.js';
import { createTestDatabase, type TestDatabase } from './app.js';
import { distIsFresh } from './service-process.js';

/**
 * The production build (`npm run build`): the service compiled to `dist/` by tsc, started as `node dist/main.js`
 * from another directory, with a module hook that refuses any TypeScript source, tsx or typescript at run time.
 */
const ROOT = resolve('.');
const DIST = join(ROOT, 'dist');
const DEMO_PASSWORD = 'demo-secret-pass-2';

/** An ESM resolve hook (registered by `--import`): loading a .ts file, tsx or typescript fails the start. */
const NO_TS_HOOKS = `export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (/\\.[cm]?tsx?$|\\/node_modules\\/(tsx|typescript)\\//.test(r.url)) throw new Error('TypeScript at run time: ' + r.url);
  return r;
}`;
const NO_TS = `data:text/javascript,${encodeURIComponent(
  `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(NO_TS_HOOKS)}`)});`,
)}`;

let db: TestDatabase | null = null;
let dataDir: string;

function run(cmd: string, args: string[]) {
  const res = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  if (res.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed:\n${res.stdout}\n${res.stderr}`);
}

/** Every file under `dir`, relative to it. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name)));
}

beforeAll(async () => {
  // The service (tsc into dist/, migrations copied) always; the pages only when missing or stale (CI built them already).
  if (!distIsFresh(ROOT)) run('npm', ['run', 'build:server']);
  run(process.execPath, ['scripts/ensure-web.mjs']);
  dataDir = mkdtempSync(join(tmpdir(), 'ro-prod-'));
  if (process.env.DATABASE_URL) db = await createTestDatabase();
  await db?.database.close();
});
afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  await db?.drop();
});

interface Running {
  proc: ChildProcess;
  base: string;
  output: () => string;
  exited: Promise<number | null>;
}

function start(extraEnv: Record<string, string> = {}): Promise<Running> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    BCRYPT_COST: '4',
    LOG_LEVEL: 'info',
    DEMO_PASSWORD,
    ...extraEnv,
  };
  if (db?.url) env.DATABASE_URL = db.url;
  // From the data dir, not the project: nothing may depend on the working directory.
  const proc = spawn(process.execPath, [`--import=${NO_TS}`, join(DIST, 'main.js')], { cwd: dataDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((done) => proc.on('exit', (code) => done(code)));
  return new Promise((done, fail) => {
    const check = setInterval(() => {
      const m = /API:\s+(http:\/\/\S+)/.exec(out);
      if (m) {
        clearInterval(check);
        done({ proc, base: m[1].replace('localhost', '127.0.0.1'), output: () => out, exited });
      }
    }, 50);
    void exited.then(() => {
      clearInterval(check);
      fail(new Error(`exited early:\n${out}`));
    });
  });
}

async function stop(r: Running) {
  r.proc.kill('SIGTERM');
  return r.exited;
}

const login = (base: string) =>
  fetch(`${base}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'admin@demo.local', password: DEMO_PASSWORD }) });

describe('npm run build', () => {
  it('emits JavaScript only, with the migrations beside the migrator, and the pages', () => {
    const emitted = files(DIST);
    expect(emitted).toContain('main.js');
    expect(emitted).toContain('db/client.js');
    const other = emitted.filter((f) => !/\.js(\.map)?$/.test(f) && !f.startsWith('db/migrations/'));
    expect(other).toEqual([]);
    expect(emitted.filter((f) => f.endsWith('.test.js'))).toEqual([]);
    // Every migration of the source tree, journal included.
    const migrations = files(join(ROOT, 'src/db/migrations'));
    expect(files(join(DIST, 'db/migrations')).sort()).toEqual(migrations.sort());
    expect(existsSync(join(ROOT, 'web/dist/admin.html'))).toBe(true);
  });

  it('the guard of the next test refuses TypeScript at run time', () => {
    const res = spawnSync(process.execPath, [`--import=${NO_TS}`, '--input-type=module', '-e', `await import('typescript')`], { cwd: ROOT, encoding: 'utf8' });
    expect(res.status).not.toBe(0);
    expect(res.stderr).toContain('TypeScript at run time');
  });

  it('node dist/main.js serves the API, the docs and the panel, logs JSON to a pipe, and stops cleanly on SIGTERM', async () => {
    const r = await start();
    try {
      expect((await fetch(`${r.base}/health`)).status).toBe(200);
      const doc = await fetch(`${r.base}/openapi.json`);
      expect(doc.status).toBe(200);
      expect(Object.keys(((await doc.json()) as { paths: object }).paths)).toContain('/auth/login');
      const res = await login(r.base);
      expect(res.status).toBe(200);
      const { accessToken } = (await res.json()) as { accessToken: string };
      const tables = await fetch(`${r.base}/t/demo/tables`, { headers: { authorization: `Bearer ${accessToken}` } });
      expect(tables.status).toBe(200);
      const admin = await fetch(`${r.base}/admin`);
      expect(admin.status).toBe(200);
      expect(admin.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await admin.text();
      const asset = /src="(\/web\/assets\/[^"]+\.js)"/.exec(html);
      expect(asset).not.toBeNull();
      expect((await fetch(r.base + asset![1])).status).toBe(200);
    } finally {
      expect(await stop(r)).toBe(0);
    }
    // stdout is a pipe: one JSON object a line (the banner aside), down to the last one.
    const json = r.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg?: string });
    expect(json.map((l) => l.msg)).toEqual(expect.arrayContaining(['request completed', 'stopped']));
  }, 90_000);

  it('LOG_FORMAT=pretty prints readable lines instead (a restart on the same data)', async () => {
    const r = await start({ LOG_FORMAT: 'pretty' });
    try {
      expect((await login(r.base)).status).toBe(200);
    } finally {
      expect(await stop(r)).toBe(0);
    }
    const out = r.output();
    expect(out).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: stopped$/m);
    expect(out).not.toMatch(/^\{"level"/m);
  }, 90_000);

  it('the log format follows the terminal unless LOG_FORMAT says', () => {
    expect(parseLogFormat(undefined, true)).toBe('pretty');
    expect(parseLogFormat(undefined, false)).toBe('json');
    expect(parseLogFormat('json', true)).toBe('json');
    expect(parseLogFormat('pretty', false)).toBe('pretty');
    expect(() => parseLogFormat('yaml', false)).toThrow(/LOG_FORMAT/);
  });
});
