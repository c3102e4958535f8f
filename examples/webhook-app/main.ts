import { createPublicApiClient } from './api-client.js';
import { createWebhookReceiver } from './receiver.js';

/**
 * The example App as a process:
 *
 *   PUBLIC_API_URL=http://localhost:3000 APP_TOKEN=<installation token> WEBHOOK_SECRET=whsec_... PORT=4000 \
 *     npx tsx examples/webhook-app/main.ts
 *
 * It lists the menu once, then prints every verified webhook and, on each new order, the latest orders.
 */
const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const api = createPublicApiClient({ baseUrl: env('PUBLIC_API_URL'), token: env('APP_TOKEN') });
const receiver = createWebhookReceiver({
  secret: env('WEBHOOK_SECRET'),
  async onEvent(event) {
    console.log(`${event.type} ${event.data.order.orderNumber} -> ${event.data.order.status} (tenant ${event.tenant.slug}, ${event.id})`);
    if (event.type === 'order.created') {
      const latest = await api.orders();
      console.log(`  ${latest.length} orders in the last 7 days; rate limit left: ${api.rateLimit.remaining}`);
    }
  },
});

const items = await api.menuItems();
console.log(`menu: ${items.length} items`);
const url = await receiver.listen(Number(process.env.PORT ?? 4000), process.env.HOST ?? '127.0.0.1');
console.log(`receiving webhooks at ${url}`);
