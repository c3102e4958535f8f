/**
 * What the gateway_a simulator remembers: issued OAuth tokens, known terminals, and the payment
 * intents as the gateway's API shows them.
 */
import type { Clock } from '../../../platform/clock.js';
import { tokenStore, type TokenStore } from '../../simulator/oauth.js';
import { errorReplier, SimulatorError } from '../../simulator/server.js';
import { TERMINAL_SERIAL } from '../client.js';
import type { GatewayAWebhookShape } from '../webhook.js';

export type { TokenStore } from '../../simulator/oauth.js';

export const GATEWAY_A_SIM_CLIENT_ID = 'sim-gateway-a-client';
export const GATEWAY_A_SIM_CLIENT_SECRET = 'sim-gateway-a-secret';
/** Token lifetime of the simulator unless told otherwise (6 hours, like the real gateway). */
export const GATEWAY_A_SIM_TOKEN_TTL_SECONDS = 21_600;

export type SimOutcomeMode = 'manual' | 'approve' | 'decline';

export type IntentState = 'OPEN' | 'ON_TERMINAL' | 'PROCESSING' | 'FINISHED' | 'CANCELED' | 'ERROR';
/** States in which an intent waits for the terminal: it can still be decided or cancelled. */
export const PENDING: ReadonlySet<IntentState> = new Set(['OPEN', 'ON_TERMINAL', 'PROCESSING']);

export interface SimIntent {
  id: string;
  deviceId: string;
  amount: number;
  description: string | null;
  externalReference: string | null;
  printOnTerminal: boolean;
  state: IntentState;
  payment: { id: number; state: 'approved' | 'rejected'; type: string } | null;
  declineReason: string | null;
  sandbox: boolean;
  createdAt: Date;
  updatedAt: Date;
  lastShape: GatewayAWebhookShape | null;
}

/** The intent as the gateway's API shows it. */
export interface SimIntentView {
  id: string;
  device_id: string;
  amount: number;
  description?: string;
  state: IntentState;
  payment?: { id: number; state: 'approved' | 'rejected'; type: string };
  additional_info: { external_reference?: string; print_on_terminal: boolean };
  created_at: string;
}

export function viewIntent(i: SimIntent): SimIntentView {
  return {
    id: i.id,
    device_id: i.deviceId,
    amount: i.amount,
    ...(i.description !== null ? { description: i.description } : {}),
    state: i.state,
    ...(i.payment ? { payment: { ...i.payment } } : {}),
    additional_info: {
      ...(i.externalReference !== null ? { external_reference: i.externalReference } : {}),
      print_on_terminal: i.printOnTerminal,
    },
    created_at: i.createdAt.toISOString(),
  };
}

export { SimulatorError };
/** A refusal of the simulated gateway, answered as `{ error, message, status }`. */
export const replyError = errorReplier((err) => ({ error: err.code, message: err.message, status: err.status }));

/** The gateway's OAuth tokens (`APP_USR-...`), each valid for `ttlSeconds`. */
export const gatewayATokens = (clock: Clock, ttlSeconds: number): TokenStore =>
  tokenStore(clock, ttlSeconds, { prefix: 'APP_USR-sim-', tokenType: 'bearer', defaultScope: 'offline_access read write', extra: { live_mode: false } });

/** The terminals (devices) of the account: a fixed list, or any `T-...` serial (remembered once used). */
export function terminalRegistry(fixed?: string[]) {
  const strict = fixed !== undefined;
  const serials = new Set(fixed ?? []);
  return {
    /** True when only the listed terminals exist. */
    strict,
    serials: serials as ReadonlySet<string>,
    known(serial: string): boolean {
      if (!TERMINAL_SERIAL.test(serial)) return false;
      if (strict) return serials.has(serial);
      serials.add(serial);
      return true;
    },
    add(serial: string) {
      serials.add(serial);
    },
  };
}
export type TerminalRegistry = ReturnType<typeof terminalRegistry>;
