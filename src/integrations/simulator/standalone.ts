import { pathToFileURL } from 'node:url';
import type { ProviderLogger } from '../http.js';

/** True when the module at `metaUrl` is the script node (or tsx) was started with. */
export function isMain(metaUrl: string): boolean {
  return Boolean(process.argv[1]) && metaUrl === pathToFileURL(process.argv[1]).href;
}

/** One line per event on stdout, for the standalone simulators. */
export function consoleLogger(name: string): ProviderLogger {
  const line = (level: string) => (obj: unknown, msg?: string) => {
    const text = typeof obj === 'string' ? obj : `${msg ?? ''} ${JSON.stringify(obj)}`;
    process.stdout.write(`[${name}] ${level} ${text}\n`);
  };
  return { debug: () => {}, info: line('info'), warn: line('warn'), error: line('error') } as unknown as ProviderLogger;
}

/** Stops on SIGINT / SIGTERM by closing what was started. */
export function stopOnSignals(close: () => Promise<void>): void {
  const stop = () => void close().then(() => process.exit(0), () => process.exit(1));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/**
 * The entry of a standalone simulator script: when `metaUrl` is the script node was started with,
 * runs `start` and closes what it returns on SIGINT / SIGTERM; a failure to start exits 1.
 */
export function runWhenMain(metaUrl: string, name: string, start: () => Promise<{ close(): Promise<void> }>): void {
  if (!isMain(metaUrl)) return;
  start()
    .then((sim) => stopOnSignals(() => sim.close()))
    .catch((err) => {
      process.stderr.write(`${name} failed to start: ${(err as Error).message}\n`);
      process.exit(1);
    });
}
