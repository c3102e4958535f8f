import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * True when `dist/main.js` is newer than every file of `src/` (CI builds before it tests): a child process can then
 * start from the compiled service, without compiling TypeScript at every start.
 */
export function distIsFresh(root = '.'): boolean {
  const main = join(root, 'dist', 'main.js');
  if (!existsSync(main)) return false;
  const built = statSync(main).mtimeMs;
  const newest = (dir: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce((max, e) => {
      const path = join(dir, e.name);
      return Math.max(max, e.isDirectory() ? newest(path) : statSync(path).mtimeMs);
    }, 0);
  return newest(join(root, 'src')) <= built;
}

/**
 * The service's real entry point (`src/main.ts`, or `dist/main.js` with `entry: 'dist'`) in a child process, for
 * tests and benchmarks that need real processes: several API processes and a worker on one database, a
 * `kill -9`, a restart on the same data. The process is ready when it printed its banner (the API's
 * address, or the worker's "is running" line).
 */
export interface ServiceProcess {
  proc: ChildProcess;
  pid: number;
  /** `http://127.0.0.1:<port>` of an API process; null for a worker. */
  base: string | null;
  output: () => string;
  exited: Promise<number | null>;
  /** Sends `signal` (SIGTERM by default) and waits for the exit. */
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
}

export interface ServiceOptions {
  role: 'api' | 'worker' | 'all';
  /** Shared by processes that must share secrets kept on disk (JWT and encryption keys) or a PGlite database. */
  dataDir: string;
  databaseUrl?: string;
  /** 0 (default): any free port. */
  port?: number;
  env?: Record<string, string>;
  /** Default: in CI (which builds first) `dist` when it is fresh (distIsFresh), else `src` through tsx. */
  entry?: 'src' | 'dist';
  startTimeoutMs?: number;
}

export function startService(opts: ServiceOptions): Promise<ServiceProcess> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ROLE: opts.role,
    PORT: String(opts.port ?? 0),
    HOST: '127.0.0.1',
    DATA_DIR: opts.dataDir,
    BCRYPT_COST: '4',
    LOG_LEVEL: 'warn',
    LOG_FORMAT: 'json',
    ...opts.env,
  };
  if (opts.databaseUrl) env.DATABASE_URL = opts.databaseUrl;
  const entry = opts.entry ?? (process.env.CI && distIsFresh() ? 'dist' : 'src');
  const args = entry === 'dist' ? ['dist/main.js'] : ['--import', 'tsx', 'src/main.ts'];
  const proc = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
    return exited;
  };
  const ready = opts.role === 'worker' ? /worker is running/ : /API:\s+(http:\/\/\S+)/;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop('SIGKILL');
      reject(new Error(`the ${opts.role} process did not start:\n${out}`));
    }, opts.startTimeoutMs ?? 60_000);
    const check = setInterval(() => {
      const m = ready.exec(out);
      if (!m) return;
      clearInterval(check);
      clearTimeout(timer);
      const base = m[1] ? m[1].replace('localhost', '127.0.0.1') : null;
      resolve({ proc, pid: proc.pid!, base, output: () => out, exited, stop });
    }, 25);
    void exited.then(() => {
      clearInterval(check);
      clearTimeout(timer);
      reject(new Error(`the ${opts.role} process exited early:\n${out}`));
    });
  });
}
