import type { ExpenseDreGroup } from '../../db/schema/dre.js';
import type { TenantDb } from '../../db/scopes.js';
import { NotFound } from '../../platform/domain-errors.js';
import { startOfLocalDay } from '../../platform/time.js';
import * as q from './dre.queries.js';
import type { DreInput, DreView } from './dre.schemas.js';
import type { DreParts } from './dre.service.js';
import { nextMonth } from './expenses.service.js';

/**
 * Taxes on sales by `regimeTributario`, in basis points of the taxable revenue (gross revenue less discounts).
 * A documented estimate, not a tax computation (docs: /tmp/acc/decisions-dre.md, "Taxes on sales"):
 * - Simples Nacional (also over the sublimit): 4.00%, the first bracket of Annex I, where restaurants fall;
 * - MEI: 0 (its DAS is a fixed monthly amount: book it as an expense);
 * - regime normal (lucro presumido): PIS 0.65% + COFINS 3% (cumulative) + ICMS 3.2% (the bars-and-restaurants rate) = 6.85%;
 * - none or unknown: 0.
 */
export const SALES_TAX_BP: Record<string, number> = {
  simples_nacional: 400,
  simples_nacional_excesso_sublimite: 400,
  mei: 0,
  regime_normal: 65 + 300 + 320,
};
export const salesTaxBp = (regime: string | null | undefined) => (regime ? (SALES_TAX_BP[regime] ?? 0) : 0);

/** The DRE's order of the groups (byCategory sorts by it). */
const GROUP_ORDER: ExpenseDreGroup[] = ['revenue', 'revenue_deduction', 'cogs', 'opex', 'da', 'financial'];

/** `num / den` rounded half up, both non-negative integers (exact below 2^53). */
const divHalfUp = (num: number, den: number) => Number((BigInt(num) * 2n + BigInt(den)) / (BigInt(den) * 2n));

/** `part / base` as a percentage with 2 decimals (half away from zero); 0 when the base is 0 or less. */
export function percentOf(part: number, base: number): number {
  if (base <= 0) return 0;
  const bp = divHalfUp(Math.abs(part) * 10_000, base);
  return (part < 0 ? -bp : bp) / 100;
}

const units = (cents: number) => cents / 100;

/**
 * The income statement of a month (spec 4.12 `GET /dre`), accrual basis in the tenant's time zone: every
 * line in integer cents, then in currency units. With a cost center only what is booked on it counts: its
 * expenses; the revenue, the taxes on sales and the stock and invoice costs are not by cost center (0).
 */
export function statementPart({ needs }: DreParts) {
  return {
    async statement(t: TenantDb, input: DreInput): Promise<DreView> {
      const { year, month } = input;
      const first = `${year}-${String(month).padStart(2, '0')}-01`;
      const after = nextMonth(first);
      // Shared table: read before the tenant's transaction.
      const tenant = await needs.tenants.findById(t.tenantId);
      const timeZone = tenant?.timezone ?? 'America/Sao_Paulo';
      const range = { start: startOfLocalDay(first, timeZone), end: startOfLocalDay(after, timeZone) };

      return t.run(async (tx) => {
        const byCenter = input.costCenterId !== undefined;
        if (byCenter && !(await q.findCostCenter(tx.db, tx.tenantId, input.costCenterId!))) throw new NotFound('Cost center');

        const totals = await q.expenseTotalsByCategory(tx.db, tx.tenantId, { from: first, to: after, costCenterId: input.costCenterId });
        const categories = new Map((await q.categoriesByIds(tx.db, tx.tenantId, totals.map((r) => r.categoryId))).map((c) => [c.id, c]));
        const group: Record<ExpenseDreGroup, number> = { revenue: 0, revenue_deduction: 0, cogs: 0, opex: 0, da: 0, financial: 0 };
        const byCategory = totals
          .map((r) => {
            const c = categories.get(r.categoryId);
            const dreGroup = c?.dreGroup ?? 'opex';
            group[dreGroup] += r.cents;
            return { categoryName: c?.name ?? r.categoryId, dreGroup, cents: r.cents };
          })
          .filter((r) => r.cents !== 0)
          .sort((a, b) => GROUP_ORDER.indexOf(a.dreGroup) - GROUP_ORDER.indexOf(b.dreGroup) || a.categoryName.localeCompare(b.categoryName, 'pt-BR'));

        const none = { itemsTotal: 0, discountTotal: 0, serviceCharge: 0, coverCharge: 0 };
        const sales = byCenter ? none : await needs.orders.salesOfPeriod(tx, range);
        const stock = byCenter ? { cents: 0 } : await needs.inventory.costOfSales(tx, range);
        const invoices = byCenter ? { totalCents: 0 } : await needs.purchasing.importedInvoicesTotal(tx, range);

        const receitaBruta = sales.itemsTotal + sales.serviceCharge + sales.coverCharge + group.revenue;
        const taxable = Math.max(0, receitaBruta - sales.discountTotal);
        const taxes = byCenter ? 0 : divHalfUp(taxable * salesTaxBp(tenant?.regimeTributario), 10_000);
        const deducoes = sales.discountTotal + taxes + group.revenue_deduction;
        const receitaLiquida = receitaBruta - deducoes;
        const cmv = stock.cents + group.cogs + invoices.totalCents;
        const margemBruta = receitaLiquida - cmv;
        const ebitda = margemBruta - group.opex;
        const ebit = ebitda - group.da;
        const lucroLiquido = ebit - group.financial;

        return {
          period: { year, month },
          receitaBruta: units(receitaBruta),
          deducoes: units(deducoes),
          receitaLiquida: units(receitaLiquida),
          cmv: units(cmv),
          margemBruta: units(margemBruta),
          margemBrutaPercent: percentOf(margemBruta, receitaLiquida),
          despesasOperacionais: units(group.opex),
          ebitda: units(ebitda),
          ebitdaPercent: percentOf(ebitda, receitaLiquida),
          da: units(group.da),
          ebit: units(ebit),
          despesasFinanceiras: units(group.financial),
          lucroLiquido: units(lucroLiquido),
          lucroLiquidoPercent: percentOf(lucroLiquido, receitaLiquida),
          byCategory: byCategory.map((r) => ({ categoryName: r.categoryName, dreGroup: r.dreGroup, total: units(r.cents) })),
        };
      });
    },
  };
}
