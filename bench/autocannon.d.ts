// Minimal typing of the autocannon@8 API used by bench/lib-run.ts (the package ships no types).
declare module 'autocannon' {
  /** A connection's state across its `requests`, fresh each time the sequence starts over. */
  export type Context = Record<string, unknown>;

  /** One step of a sequence each connection sends in turn (defaults: the top-level options). */
  export interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    /** Called just before the step is sent (the first step: once per sequence); null skips to the next sequence. */
    setupRequest?: (req: Request, context: Context) => Request | null;
    onResponse?: (status: number, body: string, context: Context) => void;
  }

  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    pipelining?: number;
    headers?: Record<string, string>;
    method?: string;
    body?: string;
    timeout?: number;
    /** Requests per second, a quota each connection sends back to back. */
    overallRate?: number;
    /** autocannon's correction records extra values at a 1 ms interval whatever the rate: off, see README. */
    ignoreCoordinatedOmission?: boolean;
    /** The sequence each connection sends over and over instead of the one request above. */
    requests?: Request[];
  }

  export interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
  }

  export interface Result {
    url: string;
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    duration: number;
  }

  export interface Instance extends Promise<Result> {
    stop(): void;
    on(event: 'response', fn: (client: unknown, status: number, bytes: number, ms: number) => void): this;
  }

  function autocannon(opts: Options): Instance;
  export default autocannon;
}
