import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from 'playwright-core';

/**
 * Browser tests: Debian's chromium driven by playwright-core (design guide, section 2).
 *
 * `.ci/run` installs chromium when it is missing, so in CI a missing browser fails the run. On a
 * developer machine without it the browser files are skipped with a warning (`apt-get install chromium`).
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) {
  if (process.env.CI) throw new Error(`${CHROMIUM} is missing: CI must install chromium (apt-get install chromium)`);
  console.warn(`browser tests skipped: ${CHROMIUM} is missing (apt-get install chromium)`);
}

/** Where screenshots and measurements are kept (gitignored; CI keeps the folder as the run's artifacts). */
export const ARTIFACTS = resolve('test-artifacts/browser');

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}

/** A phone-sized context (375 px wide, touch, pt-BR). */
export function phoneContext(browser: Browser): Promise<BrowserContext> {
  return browser.newContext({
    viewport: { width: 375, height: 740 },
    deviceScaleFactor: 2,
    isMobile: true,
    hasTouch: true,
    locale: 'pt-BR',
    timezoneId: 'America/Sao_Paulo',
  });
}

/** Builds the front end when web/dist is missing or older than its sources (the same check `npm start` makes); not with WEB_DIST_DIR. */
export function ensureWebBuilt() {
  if (process.env.WEB_DIST_DIR) return; // a build of one's own, made by hand
  execFileSync(process.execPath, ['scripts/ensure-web.mjs'], { stdio: 'inherit' });
}

export async function screenshot(page: Page, name: string, { fullPage = true } = {}) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage });
}

export function keepMeasurement(name: string, data: unknown) {
  mkdirSync(ARTIFACTS, { recursive: true });
  writeFileSync(join(ARTIFACTS, `${name}.json`), `${JSON.stringify(data, null, 2)}\n`);
  console.log(`[browser] ${name}: ${JSON.stringify(data)}`);
}

/**
 * A throttled mid-range phone on a slow mobile network (Lighthouse's "Slow 4G" figures: 150 ms
 * round trip, 1.6 Mbit/s down, 750 kbit/s up, CPU 4x slower), and a counter of the bytes that
 * crossed the network (compressed, headers included).
 */
export async function throttleAsMobile(page: Page) {
  const cdp: CDPSession = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 150,
    downloadThroughput: (1.6 * 1024 * 1024) / 8,
    uploadThroughput: (750 * 1024) / 8,
  });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  let bytes = 0;
  const byUrl = new Map<string, string>();
  cdp.on('Network.requestWillBeSent', (e) => byUrl.set(e.requestId, e.request.url));
  const perUrl: Record<string, number> = {};
  cdp.on('Network.loadingFinished', (e) => {
    bytes += e.encodedDataLength;
    const url = byUrl.get(e.requestId) ?? '?';
    perUrl[url] = (perUrl[url] ?? 0) + e.encodedDataLength;
  });
  return {
    transferred: () => bytes,
    perUrl: () => ({ ...perUrl }),
    async release() {
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
      await cdp.detach();
    },
  };
}

/** CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF), written here apart from the service's own, to check a BR Code. */
export function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/** The top-level EMV fields of a BR Code: id -> value. */
export function emvFields(payload: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (let i = 0; i < payload.length; ) {
    const id = payload.slice(i, i + 2);
    const len = Number(payload.slice(i + 2, i + 4));
    if (!/^\d{2}$/.test(id) || !Number.isInteger(len)) throw new Error(`bad EMV field at ${i}`);
    fields.set(id, payload.slice(i + 4, i + 4 + len));
    i += 4 + len;
  }
  return fields;
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * Runs axe-core (WCAG 2 A and AA rules) in the page and answers its serious and critical violations, each
 * with the elements it found: the accessibility check the pages must pass.
 */
export async function seriousAxeViolations(page: Page): Promise<{ id: string; impact: string | null; help: string; targets: string[] }[]> {
  // Evaluated through the DevTools protocol, which the pages' CSP (no inline scripts) does not apply to.
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8'));
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
}
