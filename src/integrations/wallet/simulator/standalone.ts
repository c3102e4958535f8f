/**
 * The wallet simulator as its own server:
 *   npx tsx src/integrations/wallet/simulator/standalone.ts
 */
import { consoleLogger, runWhenMain } from '../../simulator/standalone.js';
import { createWalletSimulator, WALLET_SIM_ACCOUNT, WALLET_TEST_CARDS, type WalletSimulator } from './index.js';

/** Standalone server. Environment: WALLET_SIM_PORT (4020), WALLET_SIM_HOST (127.0.0.1). */
export async function runStandalone(env: NodeJS.ProcessEnv = process.env): Promise<WalletSimulator> {
  const sim = createWalletSimulator({ log: consoleLogger('wallet simulator') });
  // The control API answers loopback callers only, and is not served when NODE_ENV=production.
  const control = env.NODE_ENV !== 'production';
  const url = await sim.listen({ port: Number(env.WALLET_SIM_PORT || 4020), host: env.WALLET_SIM_HOST || '127.0.0.1', control });
  process.stdout.write(
    [
      `wallet simulator listening on ${url}`,
      `  point the service at it: WALLET_MODE=simulator WALLET_BASE_URL=${url}`,
      `  access token:  ${WALLET_SIM_ACCOUNT.accessToken}   public key: ${WALLET_SIM_ACCOUNT.publicKey}`,
      `  device:        ${WALLET_SIM_ACCOUNT.devices[0]}`,
      `  test cards:    ${Object.entries(WALLET_TEST_CARDS).map(([k, v]) => `${v} (${k})`).join(', ')}`,
      control ? `  new account:   curl -s -X POST ${url}/__sim/accounts   (control API: from this machine only)` : '  control API:   off (NODE_ENV=production)',
      '',
    ].join('\n'),
  );
  return sim;
}

runWhenMain(import.meta.url, 'wallet simulator', runStandalone);
