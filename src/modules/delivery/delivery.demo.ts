import { DELIVERY_PROVIDERS, type DeliveryProvider } from '../../db/schema/delivery.js';
import type { DemoSeedContext } from '../../platform/module.js';
import type { MenuService } from '../menu/index.js';
import type { IntegrationsService } from './integrations.service.js';

/**
 * The codes the simulators' default orders name their items with (the control API's `POST /__sim/orders`
 * without `items`): an X-Burger and a 350 ml can, per provider. The demo menu's burger and canned soda get them.
 */
export const DEMO_EXTERNAL_CODES: { item: string; codes: Record<DeliveryProvider, string> }[] = [
  { item: 'Hambúrguer artesanal da casa', codes: { provider_a: 'XBURGER', provider_b: 'X-BURGER', provider_c: 'X-BURGER' } },
  { item: 'Guaraná (lata 350 ml)', codes: { provider_a: 'COCA-350', provider_b: 'COCA-350', provider_c: 'COCA-350' } },
];

/**
 * The demo tenant's three delivery integrations, active, with each in-process simulator's account (so an
 * order placed through a simulator's control API reaches the kitchen on `npm start`). The credentials are
 * not checked with the platforms here (no HTTP call at the first start): the simulators accept them.
 * The external codes are set first, while no integration is active, so no catalog sync is enqueued.
 */
export async function seedDemoDelivery(
  { deliveryIntegrations, menu }: { deliveryIntegrations: IntegrationsService; menu: MenuService },
  demo: DemoSeedContext,
) {
  const t = demo.tenant.db;
  const items = await menu.listItems(t);
  for (const { item, codes } of DEMO_EXTERNAL_CODES) {
    const found = items.find((i) => i.name === item);
    if (found) await menu.updateItem(t, found._id, { externalCodes: { ...found.externalCodes, ...codes } });
  }
  const existing = new Set((await deliveryIntegrations.list(t)).map((i) => i.provider));
  const created: DeliveryProvider[] = [];
  for (const provider of DELIVERY_PROVIDERS) {
    const account = deliveryIntegrations.simulatorAccount(provider);
    if (!account || existing.has(provider)) continue;
    await deliveryIntegrations.create(t, { provider, ...account, active: true }, { skipCheck: true });
    created.push(provider);
  }
  return { integrations: created };
}
