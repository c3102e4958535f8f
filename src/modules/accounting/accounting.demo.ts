import type { DemoSeedContext } from '../../platform/module.js';
import { addDays, localDate } from '../../platform/time.js';
import type { UsersService } from '../users/index.js';
import type { AccountingService } from './accounting.service.js';

/**
 * The demo's books beside the automatic postings of its sales, purchases and expenses: the owners' capital
 * and an oven (journal entries, in a month since closed), last month's rent paid from the bank, the bank's
 * statement imported and matched, and two sales on credit (one partly received, one overdue).
 */
export async function seedDemoAccounting(s: { accounting: AccountingService; users: UsersService }, demo: DemoSeedContext) {
  const t = demo.tenant.db;
  const admin = await s.users.findByEmail('admin@demo.local');
  if (!admin) return;
  const caller = { userId: admin.id, timezone: demo.tenant.timezone };
  const today = localDate(demo.clock.now(), demo.tenant.timezone);
  const monthStart = (date: string, back: number) => {
    const d = new Date(`${date.slice(0, 7)}-01T12:00:00Z`);
    d.setUTCMonth(d.getUTCMonth() - back);
    return d.toISOString().slice(0, 10);
  };
  const threeMonthsAgo = monthStart(today, 3);
  const lastMonth = monthStart(today, 1);

  await s.accounting.seedDefaultChart();
  const chart = await s.accounting.listChart(t);
  const code = (c: string) => chart.find((a) => a.code === c)!._id;
  const bank = await s.accounting.createBankAccount(t, { name: 'Conta movimento', bank: '237', agency: '1234-5', account: '56789-0', type: 'checking' });

  const post = async (competenceDate: string, description: string, debit: string, credit: string, amount: number) => {
    const entry = await s.accounting.createEntry(t, admin.id, {
      competenceDate,
      description,
      lines: [
        { accountId: debit === 'bank' ? bank.ledgerAccount.id : code(debit), debit: amount },
        { accountId: credit === 'bank' ? bank.ledgerAccount.id : code(credit), credit: amount },
      ],
    });
    return s.accounting.postEntry(t, admin.id, entry._id);
  };
  // The opening: the owners' capital and the oven, in a month since closed.
  await post(addDays(threeMonthsAgo, 1), 'Integralização de capital pelos sócios', 'bank', '3.1', 50000);
  await post(addDays(threeMonthsAgo, 9), 'Forno combinado (nota 4512)', '1.2.01', 'bank', 18000);
  await s.accounting.close(t, admin.id, { year: Number(threeMonthsAgo.slice(0, 4)), month: Number(threeMonthsAgo.slice(5, 7)) });
  // Last month's rent (an expense of the DRE, owed) paid from the bank.
  await post(addDays(lastMonth, 5), 'Pagamento do aluguel', '2.1.06', 'bank', 6500);

  // The bank's statement (a CSV as Bradesco exports it), with a fee the books do not have yet.
  const br = (date: string) => `${date.slice(8, 10)}/${date.slice(5, 7)}/${date.slice(0, 4)}`;
  const csv = [
    'Data;Histórico;Valor;Saldo',
    `${br(addDays(threeMonthsAgo, 1))};TED RECEBIDA SOCIOS;50000,00;50000,00`,
    `${br(addDays(threeMonthsAgo, 10))};PAGTO FORNECEDOR FORNO;-18000,00;32000,00`,
    `${br(addDays(lastMonth, 2))};TARIFA PACOTE SERVICOS;-39,90;31960,10`,
    `${br(addDays(lastMonth, 6))};PAGAMENTO ALUGUEL;-6500,00;25460,10`,
  ].join('\r\n');
  await s.accounting.importStatement(t, admin.id, bank._id, { name: 'extrato-bradesco.csv', bytes: Buffer.from(csv, 'utf8') });
  await s.accounting.autoMatch(t, admin.id, bank._id);

  // Sales on credit: a company's dinner, partly paid; an event from last month, overdue.
  const dinner = await s.accounting.createReceivable(t, caller, {
    customerName: 'Construtora Horizonte Ltda',
    description: 'Jantar de confraternização (40 pessoas)',
    amount: 4800,
    issueDate: addDays(today, -6),
    dueDate: addDays(today, 24),
  });
  await s.accounting.settleReceivable(t, caller, dinner._id, { amount: 1500, paymentMethod: 'pix', date: addDays(today, -5), bankAccountId: bank._id });
  await s.accounting.createReceivable(t, caller, {
    customerName: 'Associação dos Moradores do Bairro',
    description: 'Coquetel da assembleia',
    amount: 1250,
    issueDate: addDays(lastMonth, 2),
    dueDate: addDays(lastMonth, 12),
  });
}
