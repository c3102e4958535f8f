import { describe, expect, it } from 'vitest';
import { DEFAULT_ACCOUNTS } from './chart.defaults.js';
import { buildBook } from './sped.book.js';
import { checkEcd } from './sped.check.js';
import type { SpedAccount, SpedEntry } from './sped.queries.js';
import { registers } from './sped.registers.js';
import { centsOf, encode, money, text } from './sped.text.js';

/** A file made without a database: the default chart, a year of entries, the registers as the export writes them. */
const accounts: SpedAccount[] = DEFAULT_ACCOUNTS.map((a) => ({
  id: `id-${a.code}`,
  code: a.code,
  name: a.name,
  nature: a.nature,
  type: a.type,
  parentId: a.parent ? `id-${a.parent}` : null,
  createdAt: new Date('2024-06-01T12:00:00Z'),
  system: true,
}));
let seq = 0;
const entry = (date: string, lines: [string, number, number][]): SpedEntry => ({
  id: `e${++seq}`,
  number: `JE-${date.slice(0, 4)}-${String(seq).padStart(5, '0')}`,
  date,
  description: `Lançamento ${seq}`,
  totalCents: lines.reduce((s, l) => s + l[1], 0),
  sourceType: seq % 2 ? 'payment' : null,
  sourceId: seq % 2 ? `p${seq}` : null,
  lines: lines.map(([code, debitCents, creditCents]) => ({ accountId: `id-${code}`, debitCents, creditCents, memo: null })),
});
const company = { name: 'Bistrô Exemplo Ltda', cnpj: '11222333000181', uf: 'RJ', ie: '', city: 'Niterói', email: 'contato@example.com', bookNumber: 3 };

function goodLines(end = '2025-12-31'): string[] {
  seq = 0;
  const entries = [
    entry('2025-01-10', [['1.1.01', 150000, 0], ['3.1', 0, 150000]]),
    entry('2025-02-14', [['1.1.04', 48000, 0], ['4.1', 0, 45000], ['4.2', 0, 3000]]),
    entry('2025-02-20', [['6.1', 90000, 0], ['1.1.01', 0, 90000]]),
    entry('2025-07-01', [['5.1', 12345, 0], ['1.1.06', 0, 12345]]),
    entry('2025-07-01', [['1.1.06', 30000, 0], ['2.1.01', 0, 30000]]),
  ].filter((e) => e.date <= end);
  const netsBeforeStart = new Map([['id-1.1.02', 5000], ['id-3.2', -5000]]);
  const book = buildBook({ start: '2025-01-01', end, accounts, netsBeforeStart, netsBeforeYear: netsBeforeStart, entries });
  return registers(company, book);
}
const file = (lines: string[]) => encode(lines);
const errorsOf = (lines: string[]) => checkEcd(file(lines)).errors.join('\n');
/** Replaces the first line starting with `prefix` by `fn(fields)`. */
const edit = (lines: string[], prefix: string, fn: (f: string[]) => string[] | null) => {
  const i = lines.findIndex((l) => l.startsWith(prefix));
  expect(i, prefix).toBeGreaterThanOrEqual(0);
  const out = [...lines];
  const f = fn(lines[i]!.slice(1, -1).split('|'));
  if (f) out[i] = `|${f.join('|')}|`;
  else out.splice(i, 1);
  return out;
};

describe('the ECD structural check', () => {
  it('passes the files the export writes, a year and a month', () => {
    for (const end of ['2025-12-31', '2025-02-28']) {
      const result = checkEcd(file(goodLines(end)));
      expect(result.errors).toEqual([]);
      expect(result.ok).toBe(true);
    }
    // The default chart puts balance-sheet accounts at levels 2-3 (the PVA wants 4): a warning, named.
    expect(checkEcd(file(goodLines())).warnings.join('\n')).toContain('REGRA_VALIDA_NIVEL_CONTAS');
  });

  it('rejects a 9900 count that does not match the registers', () => {
    const lines = edit(goodLines(), '|9900|I250|', (f) => [f[0]!, f[1]!, String(Number(f[2]) + 1)]);
    expect(errorsOf(lines)).toContain('9900 says');
    expect(errorsOf(lines)).toContain('(REGRA_QTD_REG_BLC)');
    expect(errorsOf(edit(goodLines(), '|9900|I355|', () => null))).toContain('REGRA_QTD_REG_BLC_OBRIGATORIO');
  });

  it('rejects an I155 whose opening + debits - credits is not its closing', () => {
    const lines = edit(goodLines(), '|I155|1.1.01|', (f) => [...f.slice(0, 7), '1499,99', f[8]!]);
    expect(errorsOf(lines)).toContain('REGRA_VALIDACAO_SALDO_FINAL');
    const flipped = edit(goodLines(), '|I155|3.1|', (f) => [...f.slice(0, 8), 'D']);
    expect(errorsOf(flipped)).toContain('REGRA_VALIDACAO_SALDO_FINAL');
    const noIndicator = edit(goodLines(), '|I155|3.1|', (f) => [...f.slice(0, 4), '', ...f.slice(5)]);
    expect(errorsOf(noIndicator)).toContain('REGRA_IND_DC');
  });

  it('rejects a plan whose synthetic parent is missing, or an entry on a synthetic account', () => {
    const lines = edit(goodLines(), '|I050|01062024|01|S|2|1.1|', () => null);
    expect(errorsOf(lines)).toContain('its superior 1.1 is not in I050 (REGRA_CODIGO_CONTA_NIVEL_SUPERIOR_INVALIDO)');
    const onSynthetic = edit(goodLines(), '|I250|1.1.01|', (f) => [f[0]!, '1.1', ...f.slice(2)]);
    expect(errorsOf(onSynthetic)).toContain('I250 account 1.1 is not analytic (REGRA_CONTA_ANALITICA)');
    const unknown = edit(goodLines(), '|I250|1.1.01|', (f) => [f[0]!, '9.9.9', ...f.slice(2)]);
    expect(errorsOf(unknown)).toContain('REGRA_CONTA_NO_PLANO_CONTAS');
  });

  it('rejects an I200 whose value is not the sum of its I250 debits and credits', () => {
    const lines = edit(goodLines(), '|I200|', (f) => [f[0]!, f[1]!, f[2]!, '1500,01', ...f.slice(4)]);
    expect(errorsOf(lines)).toContain('REGRA_VALIDACAO_VL_LCTO_DEB');
    expect(errorsOf(lines)).toContain('REGRA_VALIDACAO_VL_LCTO_CRED');
    const outside = edit(goodLines(), '|I200|', (f) => [f[0]!, f[1]!, '10012026', ...f.slice(3)]);
    expect(errorsOf(outside)).toContain('REGRA_DATA_INTERVALO_DO_ARQUIVO');
  });

  it('rejects broken bytes, lines and order', () => {
    const good = goodLines();
    expect(checkEcd(Buffer.from(good.join('\n') + '\n', 'latin1')).ok).toBe(false);
    expect(errorsOf(good.map((l) => (l.startsWith('|I010|') ? l.slice(0, -1) : l)))).toContain('a line must start and end with |');
    expect(errorsOf(edit(good, '|I010|', () => ['I011', 'G', '8.00']))).toContain('unknown register "I011"');
    expect(errorsOf(edit(good, '|J930|', (f) => [f[0]!, 'Nome\x01', ...f.slice(2)]))).toContain('control character');
    // An I150 month moved before the plan: registers must ascend.
    const i150 = good.findIndex((l) => l.startsWith('|I150|'));
    const i050 = good.findIndex((l) => l.startsWith('|I050|'));
    const moved = [...good.slice(0, i050), good[i150]!, ...good.slice(i050, i150), ...good.slice(i150 + 1)];
    expect(errorsOf(moved)).toContain('registers go in ascending order');
    // A block closed twice, a wrong block count, a wrong file count.
    expect(errorsOf(edit(good, '|I990|', (f) => [f[0]!, String(Number(f[1]) - 1)]))).toContain('I990 says');
    expect(errorsOf(edit(good, '|9999|', () => ['9999', '7']))).toContain('9999 says 7 lines');
  });

  it('rejects a closing that does not reverse the balances before it, and statements that do not add up', () => {
    const i355 = edit(goodLines(), '|I355|4.1|', (f) => [f[0]!, f[1]!, f[2]!, '450,01', f[4]!]);
    expect(errorsOf(i355)).toContain('REGRA_VALIDACAO_SALDO_CONTA');
    expect(errorsOf(edit(goodLines(), '|I350|', () => null))).toContain('REGRA_ENCERRAMENTO_EXERCICIO');
    const j100 = edit(goodLines(), '|J100|1.1.01|', (f) => [...f.slice(0, 9), '0,01', ...f.slice(10)]);
    expect(errorsOf(j100)).toContain('REGRA_SOMA_DAS_PARCELAS');
    expect(errorsOf(j100)).toContain('REGRA_VALIDA_BALANCO_SALDO_FIN');
    const j150 = edit(goodLines(), '|J150|', (f) => [...f.slice(0, 9), '1,00', ...f.slice(10)]);
    expect(errorsOf(j150)).toContain('REGRA_SOMA_NIVEIS_DRE');
    expect(errorsOf(edit(goodLines(), '|J005|', () => null))).toContain('REGRA_REGISTRO_OBRIGATORIO_J005_FIM_EXERCICIO');
  });
});

describe('the ECD text rules', () => {
  it('writes Latin-1 text without pipes or control characters, amounts with a comma', () => {
    expect(text('Açaí – “Grão” | Pão\tFrançês 🍕 Łódź')).toBe('Açaí - "Grão" Pão Françês ? ?ódz');
    expect(text('x'.repeat(300))).toHaveLength(255);
    expect(text(null)).toBe('');
    expect([money(0), money(5), money(123456), money(100)]).toEqual(['0,00', '0,05', '1234,56', '1,00']);
    expect(() => money(-1)).toThrow();
    expect([centsOf('1234,56'), centsOf('10'), centsOf('0,5'), centsOf('1.234,56'), centsOf('-1')]).toEqual([123456, 1000, 50, null, null]);
    expect(() => encode(['|0000|Ł|'])).toThrow('ISO-8859-1');
  });
});
