import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { genReqId, installErrorHandling } from './http.js';
import type { Jobs } from './jobs.js';
import { serveMetrics, type Metrics } from './metrics.js';

/**
 * The HTTP listener of a `ROLE=worker` process, which serves no API: `GET /metrics` (the same registry, token
 * and loopback rule as an API process's `/metrics`, see `metrics.ts`) and `GET /health`, nothing else (404).
 * Off unless `METRICS_PORT` is set; started once the worker's job queue runs, stopped first at shutdown.
 */

export interface WorkerHttpOptions {
  /** `METRICS_PORT` (0: any free port). */
  port: number;
  /** `HOST`, as an API process. */
  host: string;
  /** `METRICS_TOKEN`; unset = loopback callers only. */
  token?: string;
  /** `TRUST_PROXY`, so `req.ip` (the loopback rule) is the client's behind a proxy, as on an API process. */
  trustProxy?: boolean | number | string;
  metrics: Metrics;
  jobs: Pick<Jobs, 'started' | 'workers'>;
  log: FastifyBaseLogger;
}

export interface WorkerHttp {
  server: FastifyInstance;
  /** `http://<host>:<port>` it listens on. */
  url: string;
  close(): Promise<void>;
}

/**
 * METRICS_PORT: the worker's metrics port, an integer from 0 to 65535 (0 picks a free one); unset: no listener.
 * `fail` makes the error (a `ConfigError` from `main.ts`).
 */
export function metricsPort(env: NodeJS.ProcessEnv, fail: (message: string) => Error): number | null {
  const value = env.METRICS_PORT;
  if (value === undefined || value === '') return null;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw fail('METRICS_PORT must be an integer from 0 to 65535');
  return port;
}

export async function startWorkerHttp(opts: WorkerHttpOptions): Promise<WorkerHttp> {
  const server = Fastify({
    loggerInstance: opts.log.child({ listener: 'worker-metrics' }),
    // A scrape every few seconds is not worth a log line each; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId,
    // Fastify accepts a hop count too; its types list only booleans, strings and functions.
    trustProxy: (opts.trustProxy ?? false) as boolean | string,
  });
  installErrorHandling(server);
  serveMetrics(server, opts.metrics, opts.token);
  // Alive while the job queue runs (503 before it started and once it stopped).
  server.get('/health', async (_req, reply) => {
    const running = opts.jobs.started && opts.jobs.workers;
    return reply.code(running ? 200 : 503).send({ status: running ? 'ok' : 'stopped', role: 'worker' });
  });
  const url = await server.listen({ port: opts.port, host: opts.host });
  return { server, url, close: () => server.close() };
}
