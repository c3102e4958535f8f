// `npm start` pre-step: builds the web pages (web/dist) when they are missing or older than their sources
// (web/src/**, web/*.html, web/vite.config.ts). Prints one line either way.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const web = join(root, 'web');
const dist = join(web, 'dist');

/** Newest modification time (ms) of the files under `dir`, recursively. */
function newest(dir) {
  let max = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    max = Math.max(max, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return max;
}

const sources = [join(web, 'vite.config.ts'), ...readdirSync(web).filter((f) => f.endsWith('.html')).map((f) => join(web, f))];
const sourceTime = Math.max(newest(join(web, 'src')), ...sources.filter(existsSync).map((f) => statSync(f).mtimeMs));
const builtTime = existsSync(join(dist, 'menu.html')) ? newest(dist) : 0;

if (builtTime > sourceTime) {
  console.log('web: web/dist is up to date');
} else {
  console.log(`web: ${builtTime ? 'sources changed' : 'web/dist missing'}, building the pages (npm run build)`);
  const res = spawnSync(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (res.status !== 0) process.exit(res.status ?? 1);
}
