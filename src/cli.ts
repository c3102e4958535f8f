import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { buildApp, type App } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/client.js';
import { DomainError } from './platform/domain-errors.js';

/**
 * The operator's command line: `npm run cli -- <command> [args]`. It reads the server's configuration,
 * opens the same database, builds the app without workers and without listening, runs one command and
 * closes. On the embedded PGlite the data dir belongs to one process: stop the server first (or use
 * DATABASE_URL, which any number of processes share).
 */

export const EXIT_OK = 0;
/** The command ran and failed: unknown App, user or key. */
export const EXIT_FAILED = 1;
/** The command line is wrong: unknown command, missing or unknown argument. */
export const EXIT_USAGE = 2;

export interface CliIo {
  /** The app, or how to build it (the process entry builds it only for a command that needs it). */
  app: App | (() => Promise<App>);
  /** Where results go, one line per call. */
  out: (line: string) => void;
  /** Where errors go; default `out`. */
  err?: (line: string) => void;
}

class UsageError extends Error {}

type ApiKeyView = Awaited<ReturnType<App['services']['apiKeys']['list']>>[number];

/** A command that cannot run as asked (exit code 1), beside the services' domain errors. */
export class CliError extends Error {}

interface Parsed {
  positional: string[];
  options: Map<string, string>;
}

/** `--name value` and `--name=value`; anything else is positional. */
function parseArgs(args: string[], allowed: readonly string[]): Parsed {
  const positional: string[] = [];
  const options = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (!allowed.includes(name)) throw new UsageError(`unknown option --${name}`);
    const value = eq < 0 ? args[++i] : arg.slice(eq + 1);
    if (value === undefined || (eq < 0 && value.startsWith('--'))) throw new UsageError(`--${name} needs a value`);
    options.set(name, value);
  }
  return { positional, options };
}

function required(p: Parsed, name: string): string {
  const v = p.options.get(name);
  if (!v) throw new UsageError(`--${name} is required`);
  return v;
}

function onePositional(p: Parsed, what: string): string {
  if (p.positional.length !== 1) throw new UsageError(`expected one ${what}`);
  return p.positional[0];
}

function keyLine(k: ApiKeyView): string {
  return [k.id, k.status.padEnd(7), `created ${k.createdAt}`, `expires ${k.expiresAt}`, k.revokedAt ? `revoked ${k.revokedAt}` : '', k.label]
    .filter(Boolean)
    .join('  ');
}

interface Command {
  usage: string;
  summary: string;
  options?: readonly string[];
  run(p: Parsed, app: App, out: (line: string) => void): Promise<void>;
}

/** The commands, by name, in the order `help` lists them. */
const COMMANDS: Record<string, Command> = {
  'apps:deprecate': {
    usage: 'apps:deprecate <appSlug>',
    summary: 'Kill-switch: deprecate an App and revoke all its active installations, in every tenant, in one transaction',
    async run(p, app, out) {
      const { app: deprecated, revoked } = await app.services.catalog.deprecate(onePositional(p, 'App slug'));
      out(`App ${deprecated.slug} is deprecated (since ${deprecated.deprecatedAt}); ${revoked} active installation(s) revoked.`);
    },
  },
  'api-keys:create': {
    usage: 'api-keys:create --email <email> [--label <text>]',
    summary: 'Mint a legacy public API key (x-api-key) for a user; valid 30 days; the key is printed only this once',
    options: ['email', 'label'],
    async run(p, app, out) {
      if (p.positional.length) throw new UsageError(`unexpected argument ${p.positional[0]}`);
      const { key, apiKey } = await app.services.apiKeys.create(required(p, 'email'), p.options.get('label') ?? '');
      out(`API key for ${apiKey.email} (id ${apiKey.id}, expires ${apiKey.expiresAt}). It is shown only this once:`);
      out(key);
    },
  },
  'api-keys:list': {
    usage: 'api-keys:list --email <email>',
    summary: 'A user\'s legacy API keys (id, status, dates, label; never the keys)',
    options: ['email'],
    async run(p, app, out) {
      if (p.positional.length) throw new UsageError(`unexpected argument ${p.positional[0]}`);
      const email = required(p, 'email');
      const keys = await app.services.apiKeys.list(email);
      if (!keys.length) out(`No API keys for ${email}.`);
      for (const k of keys) out(keyLine(k));
    },
  },
  'api-keys:revoke': {
    usage: 'api-keys:revoke <keyId>',
    summary: 'Revoke a legacy API key at once (a repeat keeps the first revocation)',
    async run(p, app, out) {
      const k = await app.services.apiKeys.revoke(onePositional(p, 'key id'));
      out(`API key ${k.id} of ${k.email} is revoked (since ${k.revokedAt}).`);
    },
  },
  'installations:signing-secret': {
    usage: 'installations:signing-secret <installationId>',
    summary: 'Print an installation\'s webhook signing secret (whsec_..., Standard Webhooks form), to hand to the App\'s publisher out of band',
    async run(p, app, out) {
      out(await app.services.webhooks.signingSecretOf(onePositional(p, 'installation id')));
    },
  },
};

const HELP = { usage: 'help', summary: 'This list' };

function usage(out: (line: string) => void) {
  out('Usage: npm run cli -- <command> [args]');
  out('');
  out('Commands:');
  for (const c of [...Object.values(COMMANDS), HELP]) {
    out(`  ${c.usage}`);
    out(`      ${c.summary}`);
  }
  out('');
  out('Reads the server\'s configuration (DATABASE_URL, DATA_DIR, ENCRYPTION_KEY...). On the embedded PGlite database, stop the server first:');
  out('the command refuses to run while a server answers on PORT (--force runs it anyway, when that server uses another data dir).');
}

/** Runs one command line (without the program name); answers the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const { out } = io;
  const err = io.err ?? out;
  const [name, ...args] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    usage(out);
    return EXIT_OK;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    err(`Unknown command: ${name}`);
    usage(err);
    return EXIT_USAGE;
  }
  let parsed: Parsed;
  try {
    parsed = parseArgs(args, command.options ?? []);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    err(`${e.message}. Usage: ${command.usage}`);
    return EXIT_USAGE;
  }
  try {
    const app = typeof io.app === 'function' ? await io.app() : io.app;
    await command.run(parsed, app, out);
    return EXIT_OK;
  } catch (e) {
    if (e instanceof UsageError) {
      err(`${e.message}. Usage: ${command.usage}`);
      return EXIT_USAGE;
    }
    if (e instanceof DomainError || e instanceof CliError) {
      err(`Error: ${e.message}`);
      return EXIT_FAILED;
    }
    throw e;
  }
}

/** Whether something answers `/health` on this machine's `port` (a server, most likely of this configuration). */
async function serverAnswers(port: number): Promise<boolean> {
  if (!port) return false;
  try {
    return (await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(1_000) })).ok;
  } catch {
    return false;
  }
}

/** The process entry: the server's configuration and database, an app that runs no jobs and does not listen. */
async function main() {
  const argv = process.argv.slice(2);
  const force = argv.includes('--force');
  let opened: { close(): Promise<unknown> }[] = [];
  const build = async () => {
    // Read only for a command that needs the database (`help` creates no data dir).
    const config = { ...loadConfig(), role: 'api' as const };
    // Two processes on one PGlite data dir do not see each other's writes and may lose them: refuse
    // while a server answers on the configured port (PostgreSQL has no such limit).
    if (!config.databaseUrl && !force && (await serverAnswers(config.port))) {
      throw new CliError(
        `A server answers on port ${config.port} and the database is the embedded PGlite in ${config.dataDir}: ` +
          'stop the server first (or use DATABASE_URL). If that server is another one, run again with --force.',
      );
    }
    const database = await openDatabase(config);
    opened = [database];
    const app = await buildApp({
      database,
      config,
      // Results go to stdout; the log (warnings and errors only, unless LOG_LEVEL says otherwise) to stderr.
      logger: { level: process.env.LOG_LEVEL || 'warn', stream: process.stderr },
      jobs: { workers: false, scheduler: false },
    });
    opened = [app, database];
    await app.ready();
    return app;
  };
  let code = EXIT_FAILED;
  try {
    code = await runCli(argv.filter((a) => a !== '--force'), {
      app: build,
      out: (line) => process.stdout.write(`${line}\n`),
      err: (line) => process.stderr.write(`${line}\n`),
    });
  } finally {
    for (const o of opened) await o.close();
  }
  process.exit(code);
}

const entry = process.argv[1];
if (entry && import.meta.url === pathToFileURL(realpathSync(entry)).href) {
  main().catch((e) => {
    process.stderr.write(e instanceof ConfigError ? `Configuration: ${e.message}\n` : `Failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
    process.exit(EXIT_FAILED);
  });
}
