/**
 * The gateway_a simulator's webhook sender: the signed result of a decided intent, posted to the
 * service and retried when the receiver does not answer 2xx; every attempt is recorded.
 */
import type { Clock } from '../../../platform/clock.js';
import type { ProviderLogger } from '../../http.js';
import type { WebhookSettings as ProviderWebhookSettings } from '../../simulator/provider-simulator.js';
import { retryingWebhookSender, type DeliveryAttempt } from '../../simulator/webhook-sender.js';
import { GATEWAY_A_SIGNATURE_HEADER, signGatewayAPayload } from '../signature.js';
import { buildGatewayAWebhookBody, type GatewayAWebhookShape, type PaymentOutcome } from '../webhook.js';
import type { SimIntent } from './state.js';

export type WebhookDelivery = DeliveryAttempt & {
  intentId: string;
  shape: GatewayAWebhookShape;
  outcome: PaymentOutcome;
};

/** Where and how webhooks go, and their body shape; changeable while the simulator runs (`setWebhook`). */
export interface WebhookSettings extends ProviderWebhookSettings {
  shape: GatewayAWebhookShape;
}

export interface WebhookSenderOptions {
  clock: Clock;
  log: ProviderLogger;
  settings: WebhookSettings;
  /** Waits before each retry of a webhook the receiver did not accept (non-2xx or unreachable). */
  retryDelaysMs: number[];
}

export function webhookSender({ clock, log, settings, retryDelaysMs }: WebhookSenderOptions) {
  const sender = retryingWebhookSender<Pick<WebhookDelivery, 'intentId' | 'shape' | 'outcome'>>({
    clock,
    log,
    provider: 'gateway_a',
    userAgent: 'gateway-a-simulator/1',
    signatureHeader: GATEWAY_A_SIGNATURE_HEADER,
    target: () => settings,
    retryDelaysMs,
  });

  return {
    ...sender,

    /** Sends the webhook of a decided intent; resolves with the first attempt, retries go on in the background. */
    notify(intent: SimIntent, shape?: GatewayAWebhookShape): Promise<WebhookDelivery> {
      const s = shape ?? settings.shape;
      intent.lastShape = s;
      const outcome: PaymentOutcome = intent.payment?.state === 'approved' ? 'approved' : 'declined';
      const body = JSON.stringify(
        buildGatewayAWebhookBody(s, {
          intentId: intent.id,
          externalId: intent.externalReference,
          outcome,
          paymentId: intent.payment ? String(intent.payment.id) : null,
          canceled: intent.state === 'CANCELED',
        }),
      );
      const signature = settings.secret ? signGatewayAPayload(body, settings.secret) : null;
      return sender.send({ intentId: intent.id, shape: s, outcome }, body, signature);
    },
  };
}
export type WebhookSender = ReturnType<typeof webhookSender>;
