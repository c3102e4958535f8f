import { parse } from 'csv-parse/sync';
import { calendarDate, clip, derivedIds, parseAmount, StatementError, type ParsedStatement, type StatementLine } from './bank.statement.js';

/**
 * CSV bank statements as Brazilian banks export them, read with `csv-parse`. The layout comes from the
 * header row (the first of the first 10 rows that names a date column and an amount, or credit and debit
 * columns), so BB, Bradesco, Itaú (`;`, decimal comma), Nubank (`,`, decimal point) and the like need no
 * per-bank code. Accepted column names (accents, case, `(R$)` and punctuation ignored):
 */
export const CSV_COLUMNS = {
  date: ['data', 'date', 'data lancamento', 'data do lancamento', 'data movimento', 'data da transacao', 'dt lancamento'],
  description: ['lancamento', 'historico', 'descricao', 'description', 'memo', 'titulo', 'detalhes', 'estabelecimento'],
  amount: ['valor', 'amount', 'quantia', 'valor lancamento'],
  credit: ['credito', 'creditos', 'entrada', 'entradas', 'credit'],
  debit: ['debito', 'debitos', 'saida', 'saidas', 'debit'],
  id: ['identificador', 'id', 'fitid', 'id transacao', 'id da transacao'],
} as const;
type Column = keyof typeof CSV_COLUMNS;

/** Lower case, no accents, no `(R$)`, punctuation as spaces. */
const normal = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/\(r\$\)|r\$/g, ' ')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();

/** The delimiter of the first non-empty line: the most frequent of `;`, tab and `,` outside quotes. */
function delimiterOf(text: string): string {
  const first = text.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
  const bare = first.replace(/"[^"]*"/g, '');
  const counts = [';', '\t', ','].map((d) => [d, bare.split(d).length - 1] as const);
  counts.sort((a, b) => b[1] - a[1]);
  return counts[0]![1] > 0 ? counts[0]![0] : ';';
}

/** `dd/mm/yyyy`, `dd/mm/yy`, `dd-mm-yyyy`, `dd.mm.yyyy`, `yyyy-mm-dd`, `yyyy/mm/dd`. */
function csvDate(raw: string): string | null {
  const s = raw.trim();
  let m = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})$/.exec(s);
  if (m) return calendarDate(m[1]!, m[2]!, m[3]!);
  m = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{2}|\d{4})$/.exec(s);
  if (m) return calendarDate(m[3]!.length === 2 ? `20${m[3]}` : m[3]!, m[2]!, m[1]!);
  return null;
}

/** Rows that carry a balance, not a transaction (BB's `Saldo Anterior`, `S A L D O`). */
const isBalanceRow = (description: string) => /^(saldo|s a l d o)\b/.test(normal(description));

interface Layout {
  header: number;
  columns: Partial<Record<Column, number>>;
  descriptions: number[];
}

function layoutOf(rows: string[][]): Layout {
  for (let r = 0; r < Math.min(rows.length, 10); r++) {
    const names = rows[r]!.map(normal);
    const find = (c: Column) => names.findIndex((n) => (CSV_COLUMNS[c] as readonly string[]).includes(n));
    const columns: Partial<Record<Column, number>> = {};
    for (const c of Object.keys(CSV_COLUMNS) as Column[]) {
      const i = find(c);
      if (i >= 0) columns[c] = i;
    }
    const descriptions = names.flatMap((n, i) => ((CSV_COLUMNS.description as readonly string[]).includes(n) ? [i] : []));
    if (columns.date !== undefined && (columns.amount !== undefined || columns.credit !== undefined || columns.debit !== undefined)) {
      return { header: r, columns, descriptions };
    }
  }
  throw new StatementError(
    'is not a known bank CSV: no header row naming a date column (Data) and an amount (Valor) or credit and debit columns (Crédito, Débito)',
    'unknown_csv_layout',
  );
}

export function parseCsv(content: string): ParsedStatement {
  const delimiter = delimiterOf(content);
  const decimal = delimiter === ',' ? '.' : ',';
  let rows: string[][];
  try {
    rows = parse(content, { delimiter, bom: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, trim: true }) as string[][];
  } catch (err) {
    throw new StatementError(`is not a readable CSV file (${(err as Error).message})`);
  }
  const layout = layoutOf(rows);
  const { columns } = layout;
  const cell = (row: string[], c: Column) => (columns[c] === undefined ? '' : (row[columns[c]] ?? '').trim());
  const raw: Omit<StatementLine, 'fitId'>[] = [];
  const given: (string | null)[] = [];
  let read = 0;
  let skipped = 0;
  for (let r = layout.header + 1; r < rows.length; r++) {
    const row = rows[r]!;
    if (row.every((v) => v.trim() === '')) continue;
    read += 1;
    const rowNo = r + 1;
    const description = clip(layout.descriptions.map((i) => (row[i] ?? '').trim()).filter((v) => v !== '').join(' - '));
    const dateText = cell(row, 'date');
    // A footer or a balance row: not a transaction.
    if (dateText === '' || isBalanceRow(description)) {
      skipped += 1;
      continue;
    }
    const date = csvDate(dateText);
    if (!date) throw new StatementError(`row ${rowNo}: ${JSON.stringify(dateText)} is not a date (dd/mm/yyyy or yyyy-mm-dd)`);
    const amountOf = (c: Column) => {
      const v = cell(row, c);
      if (v === '') return 0;
      const cents = parseAmount(v, decimal);
      if (cents === null) throw new StatementError(`row ${rowNo}: ${JSON.stringify(v)} is not an amount`);
      return cents;
    };
    const cents = columns.amount !== undefined ? amountOf('amount') : Math.abs(amountOf('credit')) - Math.abs(amountOf('debit'));
    if (cents === 0) {
      skipped += 1;
      continue;
    }
    raw.push({ date, amountCents: cents, description: description || 'CSV' });
    given.push(cell(row, 'id') || null);
  }
  const derived = derivedIds(raw);
  const lines = raw.map((l, i) => ({ ...l, fitId: given[i] ? `id:${given[i]}`.slice(0, 255) : derived[i]! }));
  const ids = new Set<string>();
  for (const [i, l] of lines.entries()) {
    if (ids.has(l.fitId)) lines[i] = { ...l, fitId: derived[i]! };
    ids.add(lines[i]!.fitId);
  }
  return { format: 'csv', accounts: [], lines, read, skipped };
}
