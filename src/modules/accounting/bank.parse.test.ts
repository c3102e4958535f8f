import { describe, expect, it } from 'vitest';
import { parseCsv } from './bank.csv.js';
import { looksLikeOfx, parseOfx } from './bank.ofx.js';
import { sameAccount } from './bank.service.js';
import { decodeText, parseAmount, StatementError } from './bank.statement.js';

describe('amounts', () => {
  it.each([
    ['1.000,00', ',', 100000],
    ['1000,5', ',', 100050],
    ['-200,00', ',', -20000],
    ['200,00-', ',', -20000],
    ['(200,00)', ',', -20000],
    ['200,00 D', ',', -20000],
    ['200,00 C', ',', 20000],
    ['R$ 1.234.567,89', ',', 123456789],
    ['1000.00', ',', 100000],
    ['1000.00', '.', 100000],
    ['-45.90', '.', -4590],
    ['1,234.56', '.', 123456],
    ['10,00', '.', 1000],
    ['+7', '.', 700],
    ['12.500', '.', 1250],
    ['0,00', ',', 0],
  ] as const)('%s (decimal %s) is %d cents', (raw, decimal, cents) => {
    expect(parseAmount(raw, decimal)).toBe(cents);
  });

  it.each(['', 'abc', '1,2,3', '10,123', '1.00.0', '--5', '1e5', '99999999999,00'])('%j is not an amount', (raw) => {
    expect(parseAmount(raw, ',')).toBeNull();
  });
});

describe('the OFX account check', () => {
  it.each([
    [{ bank: '237', account: '99999' }, { bankId: '0237', acctId: '99999' }, true],
    [{ bank: '341', account: '99999-9' }, { bankId: '0341', acctId: '9999999999' }, true],
    [{ bank: '001', account: '455000-5' }, { bankId: '001', acctId: '455000-5' }, true],
    [{ bank: '001', account: '455000-5' }, { bankId: '001', acctId: '455000' }, true],
    [{ bank: 'Banco do Brasil', account: '455000-5' }, { bankId: '999', acctId: '4550005' }, true],
    [{ bank: '237', account: '99999' }, { bankId: '0341', acctId: '99999' }, false],
    [{ bank: '237', account: '99999' }, { bankId: '0237', acctId: '88888' }, false],
    [{ bank: '237', account: '5' }, { bankId: '0237', acctId: '12345' }, false],
  ])('%j and %j: %s', (bank, file, same) => {
    expect(sameAccount(bank, file)).toBe(same);
  });
});

describe('OFX', () => {
  const sgml = (trns: string) =>
    `OFXHEADER:100\nDATA:OFXSGML\n\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><BANKACCTFROM><BANKID>1<ACCTID>2</BANKACCTFROM><BANKTRANLIST>${trns}</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>`;
  it('gives a FITID repeated in the file #2 from its second time, and one missing a derived id', () => {
    const trn = (fit: string, amt: string) => `<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20240105<TRNAMT>${amt}${fit ? `<FITID>${fit}` : ''}<MEMO>TARIFA</STMTTRN>`;
    const parsed = parseOfx(sgml(trn('A1', '-1,50') + trn('A1', '-2,50') + trn('', '-3.00') + trn('B', '0.00')));
    expect(parsed.lines.map((l) => [l.fitId.replace(/^h:.*/, 'h:'), l.amountCents, l.date])).toEqual([
      ['A1', -150, '2024-01-05'],
      ['A1#2', -250, '2024-01-05'],
      ['h:', -300, '2024-01-05'],
    ]);
    expect(parsed).toMatchObject({ read: 4, skipped: 1, accounts: [{ bankId: '1', acctId: '2' }] });
  });

  it('tells OFX from CSV', () => {
    expect(looksLikeOfx('OFXHEADER:100\nDATA:OFXSGML')).toBe(true);
    expect(looksLikeOfx('<?xml version="1.0"?>\n<?OFX OFXHEADER="200"?>\n<OFX>')).toBe(true);
    expect(looksLikeOfx('Data;Valor\n01/01/2024;1,00')).toBe(false);
  });

  it('refuses a transaction without a date or an amount', () => {
    expect(() => parseOfx(sgml('<STMTTRN><TRNAMT>1.00<FITID>X</STMTTRN>'))).toThrow(StatementError);
    expect(() => parseOfx(sgml('<STMTTRN><DTPOSTED>20240101<TRNAMT>um real<FITID>X</STMTTRN>'))).toThrow(/TRNAMT/);
  });
});

describe('CSV layouts', () => {
  it('finds the header under a preamble, reads credit and debit columns, skips balance rows', () => {
    const text = 'Extrato de conta corrente\nAgência 1234 Conta 5678-9\n\nData;Lançamento;Detalhes;Nº documento;Entradas;Saídas;Saldo\n' +
      '01/02/2024;Saldo Anterior;;;;;1.000,00\n02/02/2024;Pix - Recebido;Fulano;123;150,00;;1.150,00\n03/02/2024;Tarifa;;;;-12,90;1.137,10\n;Total;;;150,00;12,90;\n';
    const parsed = parseCsv(text);
    expect(parsed.lines.map((l) => [l.date, l.amountCents, l.description])).toEqual([
      ['2024-02-02', 15000, 'Pix - Recebido - Fulano'],
      ['2024-02-03', -1290, 'Tarifa'],
    ]);
    expect(parsed).toMatchObject({ format: 'csv', read: 4, skipped: 2 });
  });

  it('uses a transaction id column when there is one (Nubank), and reads tab-separated files', () => {
    const nubank = parseCsv('Data,Valor,Identificador,Descrição\n01/03/2024,-10.50,65e1-aa,"Compra, no débito"\n01/03/2024,-10.50,65e1-bb,"Compra, no débito"\n');
    expect(nubank.lines.map((l) => [l.fitId, l.amountCents, l.description])).toEqual([
      ['id:65e1-aa', -1050, 'Compra, no débito'],
      ['id:65e1-bb', -1050, 'Compra, no débito'],
    ]);
    const tabs = parseCsv('data\tdescricao\tvalor\n2024-03-01\tPIX\t1.234,56\n');
    expect(tabs.lines.map((l) => [l.date, l.amountCents])).toEqual([['2024-03-01', 123456]]);
  });

  it('refuses a file without a known header, and names the row of a bad date', () => {
    expect(() => parseCsv('a;b;c\n1;2;3\n')).toThrow(/not a known bank CSV/);
    expect(() => parseCsv('Data;Valor\n01/01/2024;1,00\n2024-02-31;1,00\n')).toThrow(/row 3/);
  });

  it('decodes UTF-8, else Windows-1252, and drops a BOM', () => {
    expect(decodeText(Buffer.from('\uFEFFCrédito', 'utf8'))).toBe('Crédito');
    expect(decodeText(Buffer.from('Crédito', 'latin1'))).toBe('Crédito');
  });
});
