import { buildApp, type App } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase, type Database } from './db/client.js';
import { startWorkerHttp, metricsPort, type WorkerHttp } from './platform/worker-http.js';
import { seedFirstStart } from './seed.js';

async function main() {
  const config = loadConfig();
  // A worker's metrics listener (METRICS_PORT); API processes serve /metrics on their own port.
  const workerMetricsPort = metricsPort(process.env, (message) => new ConfigError(message));
  const database = await openDatabase(config);
  const app = await buildApp({ database, config });
  // The job queue and realtime start with the app (onReady) and stop with it (preClose/onClose, see app.ts).
  if (config.role === 'worker') {
    // Job handlers and the scheduler only: no API, no seeding (an api or all process does that); metrics and health on METRICS_PORT.
    await app.ready();
    let listener: WorkerHttp | null = null;
    if (workerMetricsPort !== null) {
      const { host, metricsToken: token, trustProxy } = config;
      listener = await startWorkerHttp({ port: workerMetricsPort, host, token, trustProxy, metrics: app.deps.metrics, jobs: app.jobs, log: app.log });
    }
    const lines = [`Restaurant Operations Service worker is running (${database.kind}); job queues: ${app.jobs.workers ? 'working' : 'idle'}`];
    if (listener) lines.push(`  Metrics:    ${listener.url}/metrics   Health: ${listener.url}/health`);
    process.stdout.write(`\n${lines.join('\n')}\n\n`);
    handleSignals(app, database, listener);
    return;
  }
  if (workerMetricsPort !== null) app.log.warn('METRICS_PORT is for ROLE=worker only; this process serves /metrics on PORT');
  // Ready first: the job queue runs, so what the seed does is posted (the demo's sales reach the books).
  await app.ready();
  const logins = await seedFirstStart(database.tenant, app.services, config);
  const address = await app.listen({ port: config.port, host: config.host });
  const port = new URL(address).port;
  const base = config.publicUrl.replace(/:\d+$/, `:${port}`);

  const lines = [
    '',
    `Restaurant Operations Service is running (${database.kind === 'pglite' ? `embedded PGlite in ${config.dataDir}` : 'PostgreSQL'})`,
    `  API:        ${base}`,
    `  API docs:   ${base}/docs   (OpenAPI: ${base}/openapi.json)`,
    `  Health:     ${base}/health  ${base}/ready`,
    `  Panel:      ${base}/admin   (the restaurant's panel: log in with the logins below)`,
    ...app.integrations.describe(base).map((l) => `  ${l}`),
  ];
  if (await app.services.tenants.findBySlug('demo')) {
    lines.push(
      `  Menu (QR):  ${base}/t/demo/b/salao/menu?table=1   (a guest at table 1; printable QR codes: GET /t/demo/pdvs/<pdvId>/table-qr)`,
      `  Kitchen:    ${base}/t/demo/kitchen   (log in as demo staff or demo admin; ?station=bar or desserts)`,
    );
  }
  if (logins.length) {
    lines.push('', 'First start: these logins were created (passwords are shown only this once):');
    for (const l of logins) {
      lines.push(`  ${l.who.padEnd(12)} ${l.email.padEnd(26)} ${l.password ?? '(password from SUPERADMIN_PASSWORD)'}`);
    }
    lines.push(`  Log in:     curl -s -X POST ${base}/auth/login -H 'content-type: application/json' -d '{"email":"...","password":"..."}'`);
  }
  process.stdout.write(lines.join('\n') + '\n\n');
  handleSignals(app, database);
}

/**
 * SIGTERM/SIGINT: stop taking connections (a worker's metrics listener too) and jobs, let requests in flight end, let running jobs end
 * within their bound (10 s; the rest are failed so another process retries them), close realtime,
 * then the database. Over 20 s in all, the process exits anyway.
 */
function handleSignals(app: App, database: Database, listener: WorkerHttp | null = null) {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: finishing requests and jobs in flight');
    const timer = setTimeout(() => {
      app.log.error('shutdown took over 20 s; exiting');
      process.exit(1);
    }, 20_000);
    timer.unref();
    // Keep-alive connections that finish their last request go idle after close() began:
    // close them as they do, or close() would wait for the client to hang up.
    const sweeper = setInterval(() => app.server.closeIdleConnections(), 100);
    try {
      // A worker's metrics listener first: a scraper sees the target go down while the jobs finish.
      await listener?.close();
      await app.close();
      clearInterval(sweeper);
      await database.close();
      app.log.info('stopped');
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`Failed to start: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
