import { parseSync } from 'ofx-js';
import { calendarDate, clip, derivedIds, parseAmount, StatementError, type ParsedStatement, type StatementLine } from './bank.statement.js';

/**
 * OFX bank statements, 1.x SGML (unclosed tags, closed ones mixed in) and 2.x XML, read with `ofx-js`
 * (its SGML-to-XML pass and tree). Credit-card statements (CREDITCARDMSGSRSV1) are refused: a bank
 * account's statement is a bank statement.
 */

type Node = Record<string, unknown>;
const asList = (v: unknown): unknown[] => (v === undefined || v === null || v === '' ? [] : Array.isArray(v) ? v : [v]);
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/** Whether the text looks like OFX (an OFX header or an `<OFX>` element). */
export const looksLikeOfx = (s: string) => /^\s*(OFXHEADER\s*:|<\?xml[^>]*>\s*<\?OFX|<\?OFX|<OFX>)/i.test(s) || /<OFX>/i.test(s.slice(0, 4096));

/** `YYYYMMDD[HHMMSS[.XXX]][[+-]H:TZ]`: its calendar date as the bank wrote it (the time zone is not applied). */
function ofxDate(raw: string | null): string | null {
  const m = raw ? /^(\d{4})(\d{2})(\d{2})/.exec(raw) : null;
  return m ? calendarDate(m[1]!, m[2]!, m[3]!) : null;
}

export function parseOfx(content: string): ParsedStatement {
  let doc: Node;
  try {
    doc = parseSync(content).OFX as Node;
  } catch (err) {
    throw new StatementError(`is not a readable OFX file (${(err as Error).message})`);
  }
  if (!isNode(doc)) throw new StatementError('is not a readable OFX file (no OFX element)');
  if (doc.CREDITCARDMSGSRSV1 !== undefined && doc.BANKMSGSRSV1 === undefined) {
    throw new StatementError('is a credit-card statement (CREDITCARDMSGSRSV1): import the bank account’s statement', 'credit_card_statement');
  }
  const statements = asList(doc.BANKMSGSRSV1)
    .filter(isNode)
    .flatMap((m) => asList(m.STMTTRNRS))
    .filter(isNode)
    .flatMap((r) => asList(r.STMTRS))
    .filter(isNode);
  if (statements.length === 0) throw new StatementError('holds no bank statement (no BANKMSGSRSV1 / STMTRS)', 'no_statement');

  const accounts: ParsedStatement['accounts'] = [];
  const raw: Omit<StatementLine, 'fitId'>[] = [];
  const given: (string | null)[] = [];
  let read = 0;
  let skipped = 0;
  for (const st of statements) {
    const from = isNode(st.BANKACCTFROM) ? st.BANKACCTFROM : null;
    const acctId = from ? text(from.ACCTID) : null;
    if (acctId) accounts.push({ bankId: from ? text(from.BANKID) : null, acctId });
    const list = isNode(st.BANKTRANLIST) ? st.BANKTRANLIST : {};
    for (const trn of asList(list.STMTTRN)) {
      read += 1;
      // An element with nothing in it (`<STMTTRN>*snipped*</STMTTRN>`): no transaction.
      if (!isNode(trn)) {
        skipped += 1;
        continue;
      }
      const n = read;
      const date = ofxDate(text(trn.DTPOSTED)) ?? ofxDate(text(trn.DTUSER));
      if (!date) throw new StatementError(`transaction ${n}: DTPOSTED ${JSON.stringify(trn.DTPOSTED ?? null)} is not a date`);
      const amountText = text(trn.TRNAMT);
      const cents = amountText === null ? null : parseAmount(amountText, amountText.includes(',') && !amountText.includes('.') ? ',' : '.');
      if (cents === null) throw new StatementError(`transaction ${n}: TRNAMT ${JSON.stringify(trn.TRNAMT ?? null)} is not an amount`);
      if (cents === 0) {
        skipped += 1;
        continue;
      }
      const name = text(trn.NAME);
      const memo = text(trn.MEMO);
      const description = clip(name && memo && name !== memo ? `${name} - ${memo}` : (name ?? memo ?? text(trn.TRNTYPE) ?? 'OFX'));
      raw.push({ date, amountCents: cents, description });
      given.push(text(trn.FITID));
    }
  }
  // A FITID repeated in the file (some banks repeat them for distinct transactions) gets `#n` from its second time.
  const derived = derivedIds(raw);
  const times = new Map<string, number>();
  const lines = raw.map((l, i) => {
    const fit = given[i];
    if (!fit) return { ...l, fitId: derived[i]! };
    const n = (times.get(fit) ?? 0) + 1;
    times.set(fit, n);
    return { ...l, fitId: (n === 1 ? fit : `${fit}#${n}`).slice(0, 255) };
  });
  return { format: 'ofx', accounts, lines, read, skipped };
}
