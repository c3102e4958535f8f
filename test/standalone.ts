import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * Starts a standalone script (`npx tsx <script>`) and waits for it to print `listening on <url>`.
 * Returns the URL and a stop function that sends SIGTERM and waits for the exit.
 */
export async function startStandalone(script: string, env: Record<string, string>, timeoutMs = 20_000) {
  const child = spawn(process.execPath, [resolve('node_modules/tsx/dist/cli.mjs'), script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = async () => {
    if (child.exitCode !== null) return child.exitCode;
    child.kill('SIGTERM');
    return new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  };
  const url = await new Promise<string>((done, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`no URL printed: ${out}`)), timeoutMs);
    child.stdout.on('data', (c) => {
      out += c;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        done(m[1]);
      }
    });
    child.stderr.on('data', (c) => (out += c));
  }).catch(async (err) => {
    await stop();
    throw err;
  });
  return { url, child, stop };
}
