/**
 * Reading environment variables with messages that name them. `loadConfig` makes one reader (its
 * failures are `ConfigError`s, kept secrets live in `DATA_DIR`), reads the service's own settings
 * with it and hands it to each integration's `config.ts`.
 */
export interface EnvReader {
  /** NODE_ENV=production: simulators must be chosen on purpose, their control API is never served. */
  readonly production: boolean;
  /** The raw value; undefined when unset or empty. */
  string(name: string): string | undefined;
  /** One of `allowed`; `fallback` when unset. */
  choice<T extends string>(name: string, allowed: readonly T[], fallback: T): T;
  /** true/1/yes or false/0/no, any case; `fallback` when unset. */
  flag(name: string, fallback: boolean): boolean;
  /** An integer from `min` to `max`; `fallback` when unset. */
  int(name: string, fallback: number, min: number, max: number): number;
  /** An http(s) URL without trailing slashes; undefined when unset. */
  httpUrl(name: string): string | undefined;
  /** Refuses to start in production unless the variable is set (a simulator must never be picked by default there). */
  requireInProduction(name: string): void;
  /** A random secret generated once and kept in the data dir under `file`. */
  keptSecret(file: string): string;
  /** The error to throw for a bad setting (a `ConfigError` when read by `loadConfig`). */
  fail(message: string): Error;
}

export interface EnvReaderOptions {
  keptSecret(file: string): string;
  fail?(message: string): Error;
}

export function envReader(env: NodeJS.ProcessEnv, opts: EnvReaderOptions): EnvReader {
  const fail = opts.fail ?? ((message: string) => new Error(message));
  const string = (name: string) => env[name] || undefined;
  return {
    production: env.NODE_ENV === 'production',
    string,
    choice(name, allowed, fallback) {
      const v = string(name);
      if (v === undefined) return fallback;
      if (!(allowed as readonly string[]).includes(v)) throw fail(`${name} must be one of ${allowed.join(', ')}`);
      return v as (typeof allowed)[number];
    },
    flag(name, fallback) {
      const v = string(name)?.toLowerCase();
      if (v === undefined) return fallback;
      if (['true', '1', 'yes'].includes(v)) return true;
      if (['false', '0', 'no'].includes(v)) return false;
      throw fail(`${name} must be true or false`);
    },
    int(name, fallback, min, max) {
      const v = string(name);
      if (v === undefined) return fallback;
      const n = Number(v);
      if (!Number.isInteger(n) || n < min || n > max) throw fail(`${name} must be an integer from ${min} to ${max}`);
      return n;
    },
    httpUrl(name) {
      const v = string(name);
      if (v === undefined) return undefined;
      let u: URL;
      try {
        u = new URL(v);
      } catch {
        throw fail(`${name} must be an http(s) URL`);
      }
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw fail(`${name} must be an http(s) URL`);
      return v.replace(/\/+$/, '');
    },
    requireInProduction(name) {
      if (env.NODE_ENV === 'production' && !string(name)) {
        throw fail(`${name} must be set when NODE_ENV=production (simulators are for development)`);
      }
    },
    keptSecret: (file) => opts.keptSecret(file),
    fail,
  };
}
