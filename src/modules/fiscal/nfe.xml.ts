/**
 * The NF-e (model 55) / NFC-e (model 65) document, layout 4.00, built with fast-xml-parser's XMLBuilder.
 * Unsigned: the provider signs it with the tenant's certificate (as the Brazilian NF-e APIs do).
 * Defaults when a menu item has no fiscal data: NCM 2106.90.90 (preparações alimentícias n.e.), CFOP 5102
 * (venda de mercadoria adquirida de terceiros), CSOSN 102 under the Simples Nacional (CRT 1, 2, 4), CST 00
 * otherwise. PIS and COFINS are sent as CST 07 (not taxed): rates are not configurable yet.
 */
import { XMLBuilder } from 'fast-xml-parser';

export const DEFAULT_NCM = '21069090';
export const DEFAULT_CFOP = '5102';
export const DEFAULT_CSOSN = '102';
export const DEFAULT_CST = '00';

export interface NfeLine {
  code: string;
  name: string;
  ncm: string;
  cfop: string;
  cest: string | null;
  taxCode: string;
  unit: 'UN' | 'KG';
  quantity: number;
  unitPriceCents: number;
  totalCents: number;
  discountCents: number;
  otherCents: number;
}

export interface NfeInput {
  key: string;
  cNF: string;
  cDV: number;
  cUF: string;
  model: 55 | 65;
  series: number;
  number: number;
  emittedAt: Date;
  timeZone: string;
  /** 1 production, 2 homologação. */
  tpAmb: 1 | 2;
  emitter: {
    cnpj: string;
    name: string;
    ie: string | null;
    crt: '1' | '2' | '3' | '4';
    street: string | null;
    number: string | null;
    district: string | null;
    city: string | null;
    state: string;
    cep: string | null;
  };
  recipientCpf: string | null;
  lines: NfeLine[];
  /** NF-e `tPag` codes and amounts. */
  payments: { tPag: string; amountCents: number }[];
}

const money = (cents: number) => (cents / 100).toFixed(2);

/** `2026-11-26T07:30:00-03:00`: the instant in the tenant's zone with its offset. */
export function localDateTime(at: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  const local = `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`;
  const offsetMin = Math.round((Date.parse(`${local}Z`) - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
  const sign = offsetMin < 0 ? '-' : '+';
  const abs = Math.abs(offsetMin);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

const simples = (crt: string) => crt !== '3';

function icms(crt: string, taxCode: string) {
  if (simples(crt)) {
    const tag = taxCode === '500' ? 'ICMSSN500' : taxCode === '101' ? 'ICMSSN101' : 'ICMSSN102';
    return { [tag]: { orig: '0', CSOSN: taxCode } };
  }
  if (['40', '41', '50'].includes(taxCode)) return { ICMS40: { orig: '0', CST: taxCode } };
  if (taxCode === '60') return { ICMS60: { orig: '0', CST: '60' } };
  return { ICMS00: { orig: '0', CST: '00', modBC: '3', vBC: '0.00', pICMS: '0.00', vICMS: '0.00' } };
}

export function buildNfeXml(input: NfeInput): string {
  const dhEmi = localDateTime(input.emittedAt, input.timeZone);
  const e = input.emitter;
  const sum = (f: (l: NfeLine) => number) => input.lines.reduce((s, l) => s + f(l), 0);
  const vProd = sum((l) => l.totalCents);
  const vDesc = sum((l) => l.discountCents);
  const vOutro = sum((l) => l.otherCents);
  const vNF = vProd - vDesc + vOutro;
  const paid = input.payments.reduce((s, p) => s + p.amountCents, 0);
  const doc = {
    '?xml': { '@version': '1.0', '@encoding': 'UTF-8' },
    NFe: {
      '@xmlns': 'http://www.portalfiscal.inf.br/nfe',
      infNFe: {
        '@versao': '4.00',
        '@Id': `NFe${input.key}`,
        ide: {
          cUF: input.cUF,
          cNF: input.cNF,
          natOp: 'VENDA',
          mod: String(input.model),
          serie: String(input.series),
          nNF: String(input.number),
          dhEmi,
          tpNF: '1',
          idDest: '1',
          cMunFG: `${input.cUF}00000`,
          tpImp: input.model === 65 ? '4' : '1',
          tpEmis: '1',
          cDV: String(input.cDV),
          tpAmb: String(input.tpAmb),
          finNFe: '1',
          indFinal: '1',
          indPres: '1',
          procEmi: '0',
          verProc: 'restaurante-api 1.0',
        },
        emit: {
          CNPJ: e.cnpj,
          xNome: e.name,
          enderEmit: {
            xLgr: e.street ?? 'NAO INFORMADO',
            nro: e.number ?? 'S/N',
            xBairro: e.district ?? 'NAO INFORMADO',
            cMun: `${input.cUF}00000`,
            xMun: e.city ?? 'NAO INFORMADO',
            UF: e.state,
            ...(e.cep ? { CEP: e.cep } : {}),
            cPais: '1058',
            xPais: 'BRASIL',
          },
          IE: e.ie ?? 'ISENTO',
          CRT: e.crt,
        },
        ...(input.recipientCpf ? { dest: { CPF: input.recipientCpf, indIEDest: '9' } } : {}),
        det: input.lines.map((l, i) => ({
          '@nItem': String(i + 1),
          prod: {
            cProd: l.code,
            cEAN: 'SEM GTIN',
            xProd: l.name,
            NCM: l.ncm,
            ...(l.cest ? { CEST: l.cest } : {}),
            CFOP: l.cfop,
            uCom: l.unit,
            qCom: l.quantity.toFixed(4),
            vUnCom: money(l.unitPriceCents),
            vProd: money(l.totalCents),
            cEANTrib: 'SEM GTIN',
            uTrib: l.unit,
            qTrib: l.quantity.toFixed(4),
            vUnTrib: money(l.unitPriceCents),
            ...(l.discountCents ? { vDesc: money(l.discountCents) } : {}),
            ...(l.otherCents ? { vOutro: money(l.otherCents) } : {}),
            indTot: '1',
          },
          imposto: {
            ICMS: icms(e.crt, l.taxCode),
            PIS: { PISNT: { CST: '07' } },
            COFINS: { COFINSNT: { CST: '07' } },
          },
        })),
        total: {
          ICMSTot: {
            vBC: '0.00',
            vICMS: '0.00',
            vICMSDeson: '0.00',
            vFCP: '0.00',
            vBCST: '0.00',
            vST: '0.00',
            vFCPST: '0.00',
            vFCPSTRet: '0.00',
            vProd: money(vProd),
            vFrete: '0.00',
            vSeg: '0.00',
            vDesc: money(vDesc),
            vII: '0.00',
            vIPI: '0.00',
            vIPIDevol: '0.00',
            vPIS: '0.00',
            vCOFINS: '0.00',
            vOutro: money(vOutro),
            vNF: money(vNF),
          },
        },
        transp: { modFrete: '9' },
        pag: {
          detPag: input.payments.map((p) => ({ tPag: p.tPag, vPag: money(p.amountCents) })),
          ...(paid > vNF ? { vTroco: money(paid - vNF) } : {}),
        },
      },
    },
  };
  return new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@', processEntities: true }).build(doc) as string;
}

/**
 * Spreads `amount` cents over the lines in proportion to their totals (largest remainder), so the
 * lines' discounts / other charges add up exactly to the note's.
 */
export function spread(amount: number, totals: number[]): number[] {
  const base = totals.reduce((s, t) => s + t, 0);
  if (amount === 0 || base === 0) return totals.map((_, i) => (i === 0 ? amount : 0));
  const exact = totals.map((t) => (amount * t) / base);
  const out = exact.map(Math.floor);
  let left = amount - out.reduce((s, v) => s + v, 0);
  const order = exact.map((v, i) => [v - Math.floor(v), i] as const).sort((a, b) => b[0] - a[0]);
  for (const [, i] of order) {
    if (left <= 0) break;
    out[i]++;
    left--;
  }
  return out;
}
