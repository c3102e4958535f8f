import { menuCategories, menuItemModifierGroups, menuItems, menuVersions, modifierGroups } from '../../db/schema/menu.js';
import { defineModule } from '../../platform/module.js';
import { seedDemoMenu } from './menu.demo.js';
import { menuRoutes } from './menu.routes.js';
import { menuService } from './menu.service.js';

export type { BomSource, ItemChangeListener, ItemFiscalData, MenuService, ModifierSelection, OrderableItem } from './menu.service.js';
export type { MenuBomView } from './menu.schemas.js';
export { AdminMenuItem } from './menu.schemas.js';

/** The menu (spec 4.5): categories, items, modifier groups, cached public reads, prices for orders. */
export const menuModule = defineModule({
  name: 'menu',
  tables: [menuCategories, menuItems, modifierGroups, menuItemModifierGroups, menuVersions],
  services: (deps) => ({ menu: menuService(deps) }),
  routes: (app, services) => menuRoutes(app, services),
  demoSeed: (services, demo) => seedDemoMenu(services.menu, demo.tenant.db),
});
