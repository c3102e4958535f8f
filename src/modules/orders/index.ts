import { orderCounters, orders } from '../../db/schema/orders.js';
import { cron, defineModule } from '../../platform/module.js';
import { branchesModule } from '../branches/index.js';
import { menuModule } from '../menu/index.js';
import { tablesModule } from '../tables/index.js';
import { tenantsModule } from '../tenants/index.js';
import { ordersRoutes } from './orders.routes.js';
import { ordersService } from './orders.service.js';
import { paymentJobs } from './payments.jobs.js';
import { paymentsRoutes } from './payments.routes.js';
import { paymentsService } from './payments.service.js';

export type { OrdersService } from './orders.service.js';
export type { PaymentsService } from './payments.service.js';

/** Orders, tabs, receipts and their payments (spec 4.7, 8): card terminal, wallet checkout, expiry of unanswered payments. */
export const ordersModule = defineModule({
  name: 'orders',
  needs: [menuModule, tablesModule, branchesModule, tenantsModule],
  tables: [orders, orderCounters],
  services(deps, { menu, tables, branches, tenants }) {
    const orders = ordersService(deps, { menu, tables, branches });
    // Public order tracking over socket.io finds its order here.
    deps.realtime.setOrderLookup(async (slug, orderNumber) => {
      const tenant = await deps.tenants.bySlug(slug);
      const order = tenant?.isActive ? await orders.findByNumber(tenant.id, orderNumber) : null;
      return order ? { tenantId: order.tenantId, orderNumber: order.orderNumber } : null;
    });
    return { orders, payments: paymentsService(deps, { orders, integrations: deps.integrations, tenants, branches }) };
  },
  routes(app, services) {
    ordersRoutes(app, services);
    paymentsRoutes(app, services);
  },
  jobs: {
    declared: paymentJobs,
    handlers: ({ payments }) => ({ expire: (job) => payments.expire(job), sweep: () => payments.sweep() }),
  },
  schedules: [cron(paymentJobs.sweep, '* * * * *')],
});
