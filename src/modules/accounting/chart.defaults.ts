import type { AccountNature, AccountType, NormalBalance } from '../../db/schema/accounting.js';

/**
 * The DRE line an account feeds (the income statement, a later part of issue 14): the same groups as the
 * spec's ExpenseCategory `dreGroup` (spec 2), so expenses and accounts meet in one statement.
 */
export const DRE_GROUPS = ['revenue', 'revenue_deduction', 'cogs', 'opex', 'da', 'financial'] as const;
export type DreGroup = (typeof DRE_GROUPS)[number];

export interface DefaultAccount {
  code: string;
  name: string;
  nature: AccountNature;
  type: AccountType;
  normalBalance: NormalBalance;
  /** The code of the synthetic parent (null for a root group). */
  parent: string | null;
  dreGroup: DreGroup | null;
}

const group = (code: string, name: string, nature: AccountNature, normalBalance: NormalBalance, parent: string | null): DefaultAccount => ({
  code,
  name,
  nature,
  type: 'sintetica',
  normalBalance,
  parent,
  dreGroup: null,
});
const leaf = (code: string, name: string, nature: AccountNature, normalBalance: NormalBalance, dreGroup: DreGroup | null = null): DefaultAccount => ({
  code,
  name,
  nature,
  type: 'analitica',
  normalBalance,
  parent: code.slice(0, code.lastIndexOf('.')),
  dreGroup,
});

/**
 * The system chart of a Brazilian restaurant (POST /chart/seed/defaults), parents before children.
 * Contra accounts keep their group's nature with the opposite normal balance (depreciação acumulada,
 * descontos, devoluções, impostos sobre vendas).
 */
export const DEFAULT_ACCOUNTS: readonly DefaultAccount[] = [
  group('1', 'Ativo', 'ativo', 'debit', null),
  group('1.1', 'Ativo circulante', 'ativo', 'debit', '1'),
  leaf('1.1.01', 'Caixa', 'ativo', 'debit'),
  leaf('1.1.02', 'Bancos conta movimento', 'ativo', 'debit'),
  leaf('1.1.03', 'Clientes', 'ativo', 'debit'),
  leaf('1.1.04', 'Cartões a receber', 'ativo', 'debit'),
  leaf('1.1.05', 'PIX a receber', 'ativo', 'debit'),
  leaf('1.1.06', 'Estoques de mercadorias e insumos', 'ativo', 'debit'),
  leaf('1.1.07', 'Impostos a recuperar', 'ativo', 'debit'),
  group('1.2', 'Ativo não circulante', 'ativo', 'debit', '1'),
  leaf('1.2.01', 'Imobilizado', 'ativo', 'debit'),
  leaf('1.2.02', 'Depreciação acumulada', 'ativo', 'credit'),

  group('2', 'Passivo', 'passivo', 'credit', null),
  group('2.1', 'Passivo circulante', 'passivo', 'credit', '2'),
  leaf('2.1.01', 'Fornecedores', 'passivo', 'credit'),
  leaf('2.1.02', 'Salários a pagar', 'passivo', 'credit'),
  group('2.1.03', 'Impostos a recolher', 'passivo', 'credit', '2.1'),
  leaf('2.1.03.01', 'ICMS a recolher', 'passivo', 'credit'),
  leaf('2.1.03.02', 'PIS a recolher', 'passivo', 'credit'),
  leaf('2.1.03.03', 'COFINS a recolher', 'passivo', 'credit'),
  leaf('2.1.03.04', 'ISS a recolher', 'passivo', 'credit'),
  leaf('2.1.03.05', 'Simples Nacional a recolher', 'passivo', 'credit'),
  leaf('2.1.04', 'Taxa de serviço a repassar', 'passivo', 'credit'),
  leaf('2.1.05', 'Empréstimos e financiamentos', 'passivo', 'credit'),
  leaf('2.1.06', 'Contas a pagar', 'passivo', 'credit'),
  group('2.2', 'Passivo não circulante', 'passivo', 'credit', '2'),
  leaf('2.2.01', 'Empréstimos e financiamentos de longo prazo', 'passivo', 'credit'),

  group('3', 'Patrimônio líquido', 'patrimonio_liquido', 'credit', null),
  leaf('3.1', 'Capital social', 'patrimonio_liquido', 'credit'),
  leaf('3.2', 'Lucros ou prejuízos acumulados', 'patrimonio_liquido', 'credit'),
  leaf('3.3', 'Resultado do exercício', 'patrimonio_liquido', 'credit'),

  group('4', 'Receitas', 'receita', 'credit', null),
  leaf('4.1', 'Receita de vendas', 'receita', 'credit', 'revenue'),
  leaf('4.2', 'Receita de taxa de serviço', 'receita', 'credit', 'revenue'),
  leaf('4.3', 'Descontos concedidos', 'receita', 'debit', 'revenue_deduction'),
  leaf('4.4', 'Devoluções e cancelamentos', 'receita', 'debit', 'revenue_deduction'),
  leaf('4.5', 'Impostos sobre vendas', 'receita', 'debit', 'revenue_deduction'),
  leaf('4.6', 'Outras receitas operacionais', 'receita', 'credit', 'revenue'),

  group('5', 'Custos', 'custo', 'debit', null),
  leaf('5.1', 'Custo das mercadorias vendidas (CMV)', 'custo', 'debit', 'cogs'),

  group('6', 'Despesas', 'despesa', 'debit', null),
  leaf('6.1', 'Aluguel', 'despesa', 'debit', 'opex'),
  leaf('6.2', 'Salários e encargos', 'despesa', 'debit', 'opex'),
  leaf('6.3', 'Energia elétrica', 'despesa', 'debit', 'opex'),
  leaf('6.4', 'Água e esgoto', 'despesa', 'debit', 'opex'),
  leaf('6.5', 'Gás', 'despesa', 'debit', 'opex'),
  leaf('6.6', 'Taxas de cartão', 'despesa', 'debit', 'opex'),
  leaf('6.7', 'Marketing e publicidade', 'despesa', 'debit', 'opex'),
  leaf('6.8', 'Manutenção e reparos', 'despesa', 'debit', 'opex'),
  leaf('6.9', 'Depreciação', 'despesa', 'debit', 'da'),
  leaf('6.10', 'Despesas financeiras', 'despesa', 'debit', 'financial'),
  leaf('6.11', 'Perdas com créditos incobráveis', 'despesa', 'debit', 'opex'),
  leaf('6.12', 'Tarifas bancárias', 'despesa', 'debit', 'financial'),
  leaf('6.13', 'Outras despesas operacionais', 'despesa', 'debit', 'opex'),
];

/** Orders dotted codes by their numbers (6.2 before 6.10). */
export function compareCodes(a: string, b: string): number {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}
