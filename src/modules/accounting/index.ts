import { auditModule } from '../audit/index.js';
import {
  accountMappings,
  bankAccounts,
  bankImports,
  bankStatementLines,
  chartAccounts,
  journalCounters,
  journalEntries,
  journalLines,
  periodClosings,
  receivables,
  systemAccounts,
} from '../../db/schema/accounting.js';
import { defineModule } from '../../platform/module.js';
import { dreModule } from '../dre/index.js';
import { inventoryModule } from '../inventory/index.js';
import { ordersModule } from '../orders/index.js';
import { paymentsModule } from '../payments/index.js';
import { purchasingModule } from '../purchasing/index.js';
import { tenantsModule } from '../tenants/index.js';
import { usersModule } from '../users/index.js';
import { seedDemoAccounting } from './accounting.demo.js';
import { accountingJobs } from './accounting.jobs.js';
import { accountingRoutes } from './accounting.routes.js';
import { accountingService } from './accounting.service.js';

export type { AccountingService } from './accounting.service.js';

/**
 * Accounting (spec 4.11): chart of accounts, double-entry journal, periods and their closing, ledger,
 * receivables, bank accounts and statements, automatic postings, reports and exports.
 */
export const accountingModule = defineModule({
  name: 'accounting',
  needs: [tenantsModule, ordersModule, paymentsModule, inventoryModule, purchasingModule, dreModule, usersModule, auditModule],
  tables: [
    systemAccounts,
    chartAccounts,
    journalEntries,
    journalLines,
    journalCounters,
    periodClosings,
    receivables,
    bankAccounts,
    bankImports,
    bankStatementLines,
    accountMappings,
  ],
  services: (deps, needs) => ({ accounting: accountingService(deps, needs) }),
  routes: (app, services) => accountingRoutes(app, services),
  demoSeed: (services, demo) => seedDemoAccounting(services, demo),
  jobs: {
    declared: accountingJobs,
    handlers: ({ accounting }) => ({
      post: (job) => accounting.postSource(job),
    }),
  },
});
