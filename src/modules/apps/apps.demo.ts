import type { CatalogService } from './catalog.service.js';

/** The example App of `examples/webhook-app`, published, so a tenant admin can install it from the first start. */
export const DEMO_APP_SLUG = 'exemplo-integracao';

export async function seedDemoApp({ catalog }: { catalog: CatalogService }) {
  if (await catalog.findBySlug(DEMO_APP_SLUG)) return;
  const { app } = await catalog.create({
    slug: DEMO_APP_SLUG,
    name: 'Exemplo de integração',
    description: 'The example App of examples/webhook-app: reads orders and the menu, and receives order webhooks.',
    scopes: ['orders.read', 'menu.read', 'reservations.read', 'webhooks.subscribe'],
    webhookUrl: 'http://localhost:4000/webhooks',
  });
  await catalog.publish(app._id);
}
