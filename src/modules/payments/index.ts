import { auditModule } from '../audit/index.js';
import { payments } from '../../db/schema/payments.js';
import { cron, defineModule } from '../../platform/module.js';
import { branchesModule } from '../branches/index.js';
import { menuModule } from '../menu/index.js';
import { ordersModule } from '../orders/index.js';
import { shiftsModule } from '../shifts/index.js';
import { tenantsModule } from '../tenants/index.js';
import { usersModule } from '../users/index.js';
import { seedDemoSales } from './payments.demo.js';
import { paymentJobs } from './payments.jobs.js';
import { paymentsRoutes } from './payments.routes.js';
import { paymentsService } from './payments.service.js';

export type { PaymentsService } from './payments.service.js';

/**
 * The payment ledger of the orders (spec 4.7, 8): one row per attempt, the order's payment fields derived
 * from it; card terminal, wallet checkout, receipts, expiry of unanswered payments. Its demo seed is the
 * demo tenant's past week of sales (shifts, orders, payments), for the branch reports: the menu and users
 * modules are needed for it only (the dishes sold, the operators).
 */
export const paymentsModule = defineModule({
  name: 'payments',
  needs: [ordersModule, branchesModule, tenantsModule, shiftsModule, menuModule, usersModule, auditModule],
  tables: [payments],
  services: (deps, { orders, branches, tenants, shifts, audit }) => ({
    payments: paymentsService(deps, { orders, integrations: deps.integrations, tenants, branches, shifts, audit }),
  }),
  routes: (app, services) => paymentsRoutes(app, services),
  jobs: {
    declared: paymentJobs,
    handlers: ({ payments }) => ({
      expire: (job) => payments.expire(job),
      sweep: () => payments.sweep(),
      refund: (job) => payments.refund(job),
      walletRefund: (job) => payments.walletRefund(job),
    }),
  },
  schedules: [cron(paymentJobs.sweep, '* * * * *')],
  demoSeed: (services, demo) => seedDemoSales(services, demo),
});
