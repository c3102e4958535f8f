/**
 * fiscal_provider: the NF-e / NFC-e provider, the integration's one public entry. Its client speaks to the
 * real provider (`live`), to a standalone simulator (`simulator` + base URL) or to a simulator inside this
 * process (`simulator`, the default outside production), always over HTTP (in-process through `inject`).
 * Each tenant's token comes from its settings (`fiscalProviderToken`), not from here.
 */
import { injectFetch } from '../http.js';
import { defineIntegration, simulatorLifecycle, type BuiltIntegration, type IntegrationDeps } from '../integration.js';
import { HttpFiscalClient, type FiscalClient } from './client.js';
import { defaultFiscalProviderConfig, parseFiscalProviderConfig, type FiscalProviderConfig } from './config.js';
import { createFiscalSimulator, type FiscalSimulator } from './simulator/index.js';

export {
  readProviderDocument,
  type CancelResult,
  type FiscalClient,
  type FiscalDocKind,
  type FiscalRejectionReason,
  type ProviderDocStatus,
  type ProviderDocument,
  type VoidNumbersInput,
} from './client.js';
export type { FiscalProviderConfig } from './config.js';
export { FiscalProviderError } from './errors.js';
export { CANCEL_DEADLINE_MS, type FiscalSimulator, type SimFiscalDoc } from './simulator/index.js';

/** Where the in-process simulator is served on the service (`mount`). */
export const FISCAL_SIM_PREFIX = '/__sim/fiscal';

export interface FiscalIntegration extends BuiltIntegration<FiscalClient | null> {
  /** null when FISCAL_PROVIDER_MODE=off: emission answers 503. */
  client: FiscalClient | null;
  simulator?: FiscalSimulator;
}

function createFiscal(c: FiscalProviderConfig, deps: IntegrationDeps): FiscalIntegration {
  const { clock, log, fetch, simulatorControl } = deps;
  let client: FiscalClient | null = null;
  let simulator: FiscalSimulator | undefined;
  if (c.mode === 'live' || (c.mode === 'simulator' && c.baseUrl)) {
    client = new HttpFiscalClient({ baseUrl: c.baseUrl!, timeoutMs: c.timeoutMs, fetch, log });
  } else if (c.mode === 'simulator') {
    simulator = createFiscalSimulator({ clock });
    client = new HttpFiscalClient({ baseUrl: 'http://fiscal.simulator.internal', timeoutMs: c.timeoutMs, fetch: injectFetch(simulator.buildServer()), log });
  }
  return {
    client,
    simulator,
    ...simulatorLifecycle(simulator, FISCAL_SIM_PREFIX, simulatorControl),
    describe(baseUrl) {
      if (c.mode === 'off') return ['off (fiscal documents cannot be emitted)'];
      if (c.mode === 'live') return [`live at ${c.baseUrl}`];
      if (!simulator) return [`simulator at ${c.baseUrl}`];
      return [`in-process simulator at ${baseUrl}${FISCAL_SIM_PREFIX}  (homologação: documents without fiscal value)`];
    },
  };
}

export const fiscal = defineIntegration({
  name: 'fiscal',
  provider: 'fiscal_provider',
  kind: 'fiscal',
  parseConfig: parseFiscalProviderConfig,
  defaultConfig: defaultFiscalProviderConfig,
  create: createFiscal,
});
