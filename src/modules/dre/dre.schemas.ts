import { Type, type Static } from '@sinclair/typebox';
import { EXPENSE_DRE_GROUPS } from '../../db/schema/dre.js';
import { Body, Id, ID_PATTERN, Nullable, StringEnum, Timestamp } from '../../platform/schemas.js';

/**
 * The income statement (spec 2 "ExpenseCategory", "CostCenter", "OperatingExpense", 4.12). Money at the API
 * in decimal currency units (12.34), integer cents inside.
 */

/** The groups a tenant category may take: every DRE group but `revenue` (system rows only, spec 2). */
export const TENANT_DRE_GROUPS = ['revenue_deduction', 'cogs', 'opex', 'da', 'financial'] as const;

const Text = (max: number, description?: string) => Type.String({ minLength: 1, maxLength: max, pattern: '\\S', ...(description ? { description } : {}) });
const Code = (description: string) => Type.String({ minLength: 1, maxLength: 30, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$', description });

/** YYYY-MM (the first day of the month is stored) or YYYY-MM-DD, years 2000 to 2099. */
export const COMPETENCE_PATTERN = '^20[0-9]{2}-(0[1-9]|1[0-2])(-[0-9]{2})?$';
const Competence = (description: string) => Type.String({ pattern: COMPETENCE_PATTERN, description });

const Money = (description: string) =>
  Type.Number({ exclusiveMinimum: 0, maximum: 10_000_000_000, description: `currency units (12.34), > 0, at most 2 decimals; ${description}` });

// ---- categories

export const ExpenseCategory = Type.Object(
  {
    _id: Id,
    code: Type.String({ description: 'unique for the tenant across the system categories and its own (upper case)' }),
    name: Type.String(),
    dreGroup: StringEnum(EXPENSE_DRE_GROUPS, { description: 'the DRE line it feeds; `revenue` on system rows only' }),
    active: Type.Boolean(),
    tenant: Nullable(Id, { description: 'null: a system category (shared, cannot be deleted)' }),
  },
  { $id: 'ExpenseCategory' },
);
export type ExpenseCategoryView = Static<typeof ExpenseCategory>;

export const CreateCategoryBody = Body({
  code: Code('letters, digits, `.`, `_`, `-`; stored upper case; 409 category_code_taken when the tenant or the system has it'),
  name: Text(120),
  dreGroup: StringEnum(TENANT_DRE_GROUPS, { description: '`revenue` is for system rows only' }),
});
export type CreateCategoryInput = Static<typeof CreateCategoryBody>;

// ---- cost centers

export const CostCenter = Type.Object(
  {
    _id: Id,
    code: Type.String(),
    name: Type.String(),
    active: Type.Boolean({ description: 'false: deleted while expenses named it; it takes no new expense' }),
  },
  { $id: 'CostCenter' },
);
export type CostCenterView = Static<typeof CostCenter>;

export const CreateCostCenterBody = Body({
  code: Code('letters, digits, `.`, `_`, `-`; stored upper case; unique in the tenant (409 cost_center_code_taken)'),
  name: Text(120),
});
export type CreateCostCenterInput = Static<typeof CreateCostCenterBody>;

export const Deleted = Type.Object({
  deleted: Type.Literal(true),
});

export const CostCenterDeleted = Type.Object({
  deleted: Type.Literal(true),
  deactivated: Type.Boolean({ description: 'true: expenses name it, so it stays as `active: false` (listed, no new expenses); false: removed' }),
});
export type CostCenterDeletedView = Static<typeof CostCenterDeleted>;

// ---- expenses

export const OperatingExpense = Type.Object(
  {
    _id: Id,
    description: Type.String(),
    amount: Type.Number({ description: 'currency units' }),
    competenceDate: Type.String({ format: 'date' }),
    category: Type.Object({ _id: Id, name: Type.String(), dreGroup: StringEnum(EXPENSE_DRE_GROUPS) }),
    costCenter: Nullable(Type.Object({ _id: Id, code: Type.String(), name: Type.String() })),
    receiptUrl: Nullable(Type.String()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'OperatingExpense' },
);
export type OperatingExpenseView = Static<typeof OperatingExpense>;

export const ExpensePage = Type.Object({
  items: Type.Array(OperatingExpense),
  total: Type.Integer({ description: 'expenses matching the filter' }),
  page: Type.Integer(),
  limit: Type.Integer(),
  pages: Type.Integer({ description: 'ceil(total / limit); 0 when nothing matches' }),
});
export type ExpensePageView = Static<typeof ExpensePage>;

export const MAX_LIMIT = 100;

export const ListExpensesQuery = Type.Object({
  competenceDate: Type.Optional(Competence('YYYY-MM: the expenses of that month; YYYY-MM-DD: of that day')),
  categoryId: Type.Optional(Id),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'from 1 (default 1)' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, description: `default 20, at most ${MAX_LIMIT}` })),
});
export type ListExpensesInput = Static<typeof ListExpensesQuery>;

const ReceiptUrl = Type.String({ format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', maxLength: 2000, description: 'an http(s) URL' });

const CategoryRef = Type.String({ pattern: ID_PATTERN, description: 'an active system or tenant category (24 hex characters)' });

const expenseFields = {
  description: Text(500),
  amount: Money('stored in cents'),
  competenceDate: Competence('YYYY-MM-DD, or YYYY-MM for the first day of that month; the month the expense counts in the DRE'),
  costCenterId: Nullable(Id, { description: 'an active cost center of the tenant; null: none' }),
  receiptUrl: Nullable(ReceiptUrl),
};

export const CreateExpenseBody = Body({
  description: expenseFields.description,
  amount: expenseFields.amount,
  competenceDate: expenseFields.competenceDate,
  categoryId: CategoryRef,
  costCenterId: Type.Optional(expenseFields.costCenterId),
  receiptUrl: Type.Optional(expenseFields.receiptUrl),
});
export type CreateExpenseInput = Static<typeof CreateExpenseBody>;

export const UpdateExpenseBody = Body({
  description: Type.Optional(expenseFields.description),
  amount: Type.Optional(expenseFields.amount),
  competenceDate: Type.Optional(expenseFields.competenceDate),
  categoryId: Type.Optional(CategoryRef),
  costCenterId: Type.Optional(expenseFields.costCenterId),
  receiptUrl: Type.Optional(expenseFields.receiptUrl),
});
export type UpdateExpenseInput = Static<typeof UpdateExpenseBody>;

// ---- the statement

export const DreQuery = Type.Object({
  year: Type.Integer({ minimum: 2000, maximum: 2099 }),
  month: Type.Integer({ minimum: 1, maximum: 12 }),
  costCenterId: Type.Optional(Id),
});
export type DreInput = Static<typeof DreQuery>;

const Amount = (description: string) => Type.Number({ description: `currency units; ${description}` });
const Percent = (of: string) => Type.Number({ description: `${of} / receitaLiquida x 100, 2 decimals (38.47 = 38.47%); 0 when receitaLiquida is 0 or less` });

export const Dre = Type.Object(
  {
    period: Type.Object({ year: Type.Integer(), month: Type.Integer() }),
    receitaBruta: Amount('paid orders of the month: items before discounts + service charge + cover charge; plus entries on revenue categories'),
    deducoes: Amount('discounts + taxes on sales by the tenant’s regimeTributario + expenses of group revenue_deduction'),
    receitaLiquida: Amount('receitaBruta - deducoes'),
    cmv: Amount('sale and production exits at their unit cost (less sales given back) + expenses of group cogs + supplier invoices imported in the month'),
    margemBruta: Amount('receitaLiquida - cmv'),
    margemBrutaPercent: Percent('margemBruta'),
    despesasOperacionais: Amount('expenses of group opex'),
    ebitda: Amount('margemBruta - despesasOperacionais'),
    ebitdaPercent: Percent('ebitda'),
    da: Amount('expenses of group da'),
    ebit: Amount('ebitda - da'),
    despesasFinanceiras: Amount('expenses of group financial'),
    lucroLiquido: Amount('ebit - despesasFinanceiras'),
    lucroLiquidoPercent: Percent('lucroLiquido'),
    byCategory: Type.Array(
      Type.Object({ categoryName: Type.String(), dreGroup: StringEnum(EXPENSE_DRE_GROUPS), total: Amount('the month’s expenses of the category') }),
      { description: 'the expenses of the month by category (those with any), in DRE order, then by name' },
    ),
  },
  { $id: 'Dre' },
);
export type DreView = Static<typeof Dre>;
