import { auditModule } from '../audit/index.js';
import { orderCounters, orders } from '../../db/schema/orders.js';
import { defineModule } from '../../platform/module.js';
import { branchesModule } from '../branches/index.js';
import { menuModule } from '../menu/index.js';
import { shiftsModule } from '../shifts/index.js';
import { tablesModule } from '../tables/index.js';
import { tenantsModule } from '../tenants/index.js';
import { ordersRoutes } from './orders.routes.js';
import { ordersService } from './orders.service.js';

export type { OrderEvent, OrderEventListener, OrdersService } from './orders.service.js';
export { amountDue, RECEIPT_TTL_MS, toBillView, toOrderView } from './orders.service.js';
export { billedQuantity } from './orders.bill.js';
export { CheckoutOrder, CreateOrderBody, Order, IdempotencyHeaders, Receipt, ReceiptParams, type CreateOrderInput } from './orders.schemas.js';
export { FLOOR_ROLES } from './orders.routes.js';

/** Orders, tabs and bills (spec 4.7); their payments are the payments module's. */
export const ordersModule = defineModule({
  name: 'orders',
  needs: [menuModule, tablesModule, branchesModule, tenantsModule, shiftsModule, auditModule],
  tables: [orders, orderCounters],
  services(deps, { menu, tables, branches, tenants, shifts, audit }) {
    const orders = ordersService(deps, { menu, tables, branches, tenants, shifts, audit });
    // Public order tracking over socket.io finds its order here.
    deps.realtime.setOrderLookup(async (slug, orderNumber) => {
      const tenant = await deps.tenants.bySlug(slug);
      const order = tenant?.isActive ? await orders.findByNumber(tenant.db, orderNumber) : null;
      return order ? { tenantId: order.tenantId, orderNumber: order.orderNumber } : null;
    });
    return { orders };
  },
  routes: (app, services) => ordersRoutes(app, services),
});
