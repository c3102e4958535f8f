import { ctxOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { TenantParams, withErrors } from '../../platform/schemas.js';
import type { AccountingService } from './accounting.service.js';
import { BalanceSheet, BalanceSheetQuery, CashFlow, CashFlowQuery } from './reports.schemas.js';

/** Admin and accountant (superadmin passes): the accountant reads the books here and posts nothing (spec 4.11 "Reports"). */
export const reportReaders = { roles: ['admin', 'accountant'] } as const;
const base = '/t/:slug/admin/accounting';

/** The balance sheet and the cash-flow statement (spec 4.11 "Reports"); `/export` is in exports.routes.ts. */
export function reportsRoutes(app: RouteApp, { accounting }: { accounting: AccountingService }) {
  app.get(`${base}/balance-sheet`, {
    schema: {
      tags: ['accounting'],
      summary: 'The balance sheet at the end of a day: posted entries only, integer cents, ativo = passivo + patrimônio líquido',
      description:
        'Analytic accounts with a balance, by code: ativo circulante (1.1) and não circulante (1.2, and any other asset account), ' +
        'passivo circulante (2.1, and any other liability account) and não circulante (2.2), patrimônio líquido (3) with the results ' +
        'not closed into equity: 3.3 Resultado do exercício (the year of asOf) and 3.2 Lucros ou prejuízos acumulados (earlier years). ' +
        'Contra accounts (depreciação acumulada) show negative balances in their group. Accounts with a zero balance are left out.',
      params: TenantParams,
      querystring: BalanceSheetQuery,
      response: withErrors({ 200: BalanceSheet }),
    },
    config: { auth: reportReaders },
    handler: (req) => {
      const ctx = ctxOf(req);
      return accounting.balanceSheet(ctx.db, ctx.tenant, req.query);
    },
  });

  app.get(`${base}/cash-flow`, {
    schema: {
      tags: ['accounting'],
      summary: 'The cash-flow statement of a period, direct or indirect: posted entries only, integer cents, outflows negative',
      description:
        'Cash is the cash and bank accounts (posting keys `cash` and `bank`, and the ledger accounts of the bank accounts). Direct: ' +
        'the cash each counterpart account brought or took, grouped by account: non-current assets are investimento; loans (2.1.05), ' +
        'non-current liabilities and equity are financiamento; the rest is operacional. Indirect: operacional from the result of the ' +
        'period, the non-cash items (depreciation) and the changes in working capital. Both methods give the same totals; ' +
        'saldoInicial + the three totals = saldoFinal. 400 when end is before start.',
      params: TenantParams,
      querystring: CashFlowQuery,
      response: withErrors({ 200: CashFlow }),
    },
    config: { auth: reportReaders },
    handler: (req) => {
      const ctx = ctxOf(req);
      return accounting.cashFlow(ctx.db, ctx.tenant, req.query);
    },
  });
}
