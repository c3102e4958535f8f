import { ctxOf, tenantOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { GATEWAY_A_WEBHOOK_PATH } from '../../integrations/gateway-a/index.js';
import { PIX_PSP_SIGNATURE_HEADER, PIX_PSP_WEBHOOK_PATH } from '../../integrations/pix-psp/index.js';
import { sendIdempotent, type Idempotency } from '../../platform/idempotency.js';
import { limitPerIp, RateLimited, type RateLimiter } from '../../platform/rate-limit.js';
import { TenantIdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import type { TenantsService } from '../tenants/index.js';
import { CheckoutOrder, FLOOR_ROLES, IdempotencyHeaders, Receipt, ReceiptParams } from '../orders/index.js';
import { Type } from '@sinclair/typebox';
import {
  CheckoutConfig,
  Payment,
  ProcessPaymentBody,
  ProcessPaymentResult,
  TestCredentialsBody,
  TestCredentialsResult,
  toPaymentView,
  WalletPaymentBody,
  WebhookAck,
} from './payments.schemas.js';
import type { PaymentsService } from './payments.service.js';

/** Card attempts from one client: enough for a family at a table, not for card testing. */
const WALLET_PAYMENT_LIMIT = { name: 'checkout:wallet-payment', limit: 20, windowMs: 60_000, message: 'Too many payment attempts; wait and try again' };

export function paymentsRoutes(
  app: RouteApp,
  deps: { payments: PaymentsService; tenants: TenantsService; idempotency: Idempotency; rateLimits: RateLimiter },
) {
  const { payments, tenants, idempotency, rateLimits } = deps;

  app.post('/t/:slug/orders/:id/process-payment', {
    schema: {
      tags: ['payments'],
      summary: 'Charge an order: mock approves at once; gateway_a sends it to the card terminal (result by webhook)',
      params: TenantIdParams,
      headers: IdempotencyHeaders,
      body: ProcessPaymentBody,
      response: withErrors({ 200: ProcessPaymentResult }, [400, 401, 403, 404, 409, 422, 503]),
    },
    config: { auth: { roles: FLOOR_ROLES } },
    handler: async (req, reply) => {
      const ctx = ctxOf(req);
      const { id } = req.params;
      const result = await idempotency.run(
        `${ctx.tenantId}:payments.process:${id}`,
        req.headers['idempotency-key'],
        { user: ctx.user.id, body: req.body },
        async (claimKey) => ({ status: 200, body: await payments.processPayment(ctx, id, req.body, { claimKey }) }),
        async (paymentId) => ({ status: 200, body: await payments.paymentAnswer(ctx, id, paymentId) }),
      );
      return sendIdempotent(reply, result);
    },
  });

  app.get('/t/:slug/orders/:id/payments', {
    schema: {
      tags: ['payments'],
      summary: "The order's payment ledger, oldest first: every attempt, its amount, status and refund",
      params: TenantIdParams,
      response: withErrors({ 200: Type.Array(Payment) }),
    },
    config: { auth: { roles: [...FLOOR_ROLES, 'accountant'] } },
    handler: async (req) => (await payments.ofOrder(ctxOf(req), req.params.id)).map(toPaymentView),
  });

  // The signature covers the exact bytes received: this route keeps the raw body.
  app.register(async (raw) => {
    raw.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'buffer', bodyLimit: 256 * 1024 }, (_req, body, done) => done(null, body));
    raw.post(GATEWAY_A_WEBHOOK_PATH, {
      schema: {
        tags: ['payments'],
        summary: 'Card terminal gateway webhook (HMAC-SHA256 of the raw body in X-GatewayA-Signature)',
        security: [],
        response: withErrors({ 200: WebhookAck }, [400, 401]),
      },
      config: { auth: { public: true } },
      handler: (req) => payments.gatewayWebhook(Buffer.isBuffer(req.body) ? req.body : Buffer.from(''), req.headers['x-gatewaya-signature']),
    });
    raw.post(PIX_PSP_WEBHOOK_PATH, {
      schema: {
        tags: ['payments'],
        summary: 'PIX provider webhook: Pix received for our charges (HMAC-SHA256 of the raw body in X-Pix-Psp-Signature)',
        security: [],
        response: withErrors({ 200: WebhookAck }, [400, 401]),
      },
      config: { auth: { public: true } },
      handler: (req) => payments.pixWebhook(Buffer.isBuffer(req.body) ? req.body : Buffer.from(''), req.headers[PIX_PSP_SIGNATURE_HEADER]),
    });
  });

  app.get('/t/:slug/checkout/config', {
    schema: { tags: ['payments'], summary: "The tenant's public wallet key for the checkout SDK", security: [], params: TenantParams, response: withErrors({ 200: CheckoutConfig }, [400, 403, 404]) },
    config: { auth: { public: true } },
    handler: async (req) => ({ walletPublicKey: (await tenants.findById(tenantOf(req).id))?.walletPublicKey ?? null }),
  });

  app.post('/t/:slug/checkout/wallet-payment', {
    schema: {
      tags: ['payments'],
      summary: 'Pay online with the wallet: charged first, the order is created only when approved (402 when declined)',
      security: [],
      params: TenantParams,
      headers: IdempotencyHeaders,
      body: WalletPaymentBody,
      response: withErrors({ 201: CheckoutOrder, 429: RateLimited }, [400, 402, 403, 404, 409, 422, 503]),
    },
    config: { auth: { public: true } },
    onRequest: limitPerIp(rateLimits, WALLET_PAYMENT_LIMIT),
    handler: async (req, reply) => {
      const key = req.headers['idempotency-key'];
      const tenant = tenantOf(req);
      const result = await idempotency.run(
        `${tenant.id}:checkout.wallet`,
        key,
        req.body,
        async (claim) => ({ status: 201, body: await payments.walletCheckout(tenant, req.body, key, claim) }),
        async (id) => ({ status: 201, body: await payments.checkoutView(tenant, id) }),
      );
      return sendIdempotent(reply, result);
    },
  });

  app.post('/t/:slug/walletgateway/test-credentials', {
    schema: {
      tags: ['payments'],
      summary: 'Check wallet credentials by listing the account devices',
      params: TenantParams,
      body: TestCredentialsBody,
      response: withErrors({ 200: TestCredentialsResult }, [400, 401, 403, 404, 422, 503]),
    },
    config: { auth: { permission: 'manage_settings' } },
    handler: (req) => payments.testWalletCredentials(req.body.accessToken, req.body.deviceId),
  });

  app.get('/t/:slug/receipts/:token', {
    schema: { tags: ['payments'], summary: 'Receipt of a paid order (token valid 10 minutes)', security: [], params: ReceiptParams, response: withErrors({ 200: Receipt }, [400, 403, 404]) },
    config: { auth: { public: true } },
    handler: (req) => payments.receipt(tenantOf(req).db, req.params.token),
  });
}
