/**
 * Delivery ingestion benchmark server, forked by bench/delivery-run.ts (it needs the IPC channel). The real
 * app (`buildApp`) on PostgreSQL with the demo tenant, whose provider_a integration holds the in-process
 * simulator's webhook secret, and job workers on (ROLE=all): a webhook's order job runs in this process, so
 * "through to the order being created" is measured here. It hands the runner a template event (provider_a's
 * PLACED with the whole order, as the simulator sends it) that the runner copies with fresh ids and signs,
 * the secret, a staff order body for the plain route and the demo admin's token. Nothing in src/ is changed.
 */
import { answerRunner, demoApp, fail, failed, listenLocal, login } from './lib-server.js';

export interface DeliveryReadyMessage {
  type: 'ready';
  appUrl: string;
  /** The provider_a webhook route of the demo tenant. */
  webhookPath: string;
  /** A PLACED event with its whole order; the runner replaces `templateEventId` and `templateOrderId` in it. */
  template: string;
  templateEventId: string;
  templateOrderId: string;
  /** The demo integration's webhook secret (HMAC-SHA256 of the raw body, hex). */
  secret: string;
  /** `POST /t/demo/orders`: the same items as the template, as a staff takeout order. */
  staffPath: string;
  staffBody: { orderType: 'takeout'; customerName: string; items: { menuItem: string; quantity: number }[] };
  adminJwt: string;
}

export const BENCH_ADMIN = 'admin@demo.local';

async function main() {
  if (!process.send) fail('bench/delivery-server.ts is started by bench/delivery-run.ts (npm run bench:delivery)');
  answerRunner();
  const { app, password } = await demoApp('ro-bench-delivery-');
  const handle = app.integrations.providerA;
  const sim = handle.simulator ?? fail('provider_a runs without its in-process simulator (PROVIDER_A_MODE / PROVIDER_A_BASE_URL set?)');
  const secret = handle.simulatorAccount?.webhookSecret ?? fail('the provider_a simulator has no webhook secret');
  const tenant = (await app.deps.tenants.bySlug('demo')) ?? fail('demo tenant missing');
  const integrations = await app.services.deliveryIntegrations.list(tenant.db);
  if (!integrations.some((i) => i.provider === 'provider_a' && i.active)) fail('the demo tenant has no active provider_a integration');

  // The simulator's default order (2 burgers with bacon, 1 can), whole in the event; not sent anywhere.
  // Paid at the platform only with BENCH_PREPAID=1 (then each order also gets its payment, accounting posting and
  // stock deduction, which the staff order of (2) does not): by default the two create the same unpaid order.
  const prepaid = process.env.BENCH_PREPAID === '1';
  const sent = await sim.placeOrder({ payment: prepaid ? { method: 'CREDIT', prepaid: true } : { method: 'CASH', prepaid: false } }, { shape: 'full' });
  const items = await app.services.menu.listItems(tenant.db);
  const byCode = (code: string) => items.find((i) => i.externalCodes.provider_a === code) ?? fail(`no demo item with provider_a code ${code}`);
  const staffBody = {
    orderType: 'takeout' as const,
    customerName: 'Bench',
    items: [
      { menuItem: byCode('XBURGER')._id, quantity: 2 },
      { menuItem: byCode('COCA-350')._id, quantity: 1 },
    ],
  };

  const adminJwt = await login(app, BENCH_ADMIN, password);
  const appUrl = await listenLocal(app);
  const ready: DeliveryReadyMessage = {
    type: 'ready',
    appUrl,
    webhookPath: `/t/${tenant.slug}/webhooks/provider_a`,
    template: JSON.stringify(sent.event),
    templateEventId: String(sent.event.id),
    templateOrderId: String(sent.order.id),
    secret,
    staffPath: `/t/${tenant.slug}/orders`,
    staffBody,
    adminJwt,
  };
  process.send!(ready);
}

main().catch((err) => failed('delivery bench server', err));
