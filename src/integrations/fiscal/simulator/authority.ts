/**
 * What the simulated authority (SEFAZ) checks on an NF-e / NFC-e layout 4.00 before authorising it, with
 * SEFAZ-like rejection codes: the access key (44 digits, its mod-11 check digit, and that it matches the
 * document), the emitter's CNPJ and the recipient's CPF / CNPJ check digits, each item's NCM (8 digits:
 * the simulator does not hold the NCM table, so any well-formed code passes) and CFOP (4 digits, an exit:
 * 5, 6 or 7), and that the totals add up (items, discounts, other charges, the note's total, payments).
 */
import { XMLParser } from 'fast-xml-parser';
import { isValidCnpj, isValidCpf } from '../../../platform/br-documents.js';
import type { FiscalRejectionReason } from '../client.js';

export interface ReadDocument {
  accessKey: string;
  model: number;
  series: number;
  number: number;
  cnpj: string;
  totalCents: number;
  itemCount: number;
  emitterName: string;
  items: { name: string; quantity: string; totalCents: number }[];
  parsed: Record<string, unknown>;
}

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', parseTagValue: false, isArray: (name) => name === 'det' || name === 'detPag' });

/** mod 11 with weights 2..9 from the right: the access key's check digit (0 when the rest is 0 or 1). */
export function mod11(digits: string): number {
  let sum = 0;
  let weight = 2;
  for (let i = digits.length - 1; i >= 0; i--) {
    sum += Number(digits[i]) * weight;
    weight = weight === 9 ? 2 : weight + 1;
  }
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

const cents = (v: unknown): number | null => {
  if (typeof v !== 'string' || !/^\d{1,13}(\.\d{1,2})?$/.test(v)) return null;
  return Math.round(Number(v) * 100);
};
const text = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));
type Node = Record<string, unknown>;
const node = (v: unknown): Node => (v && typeof v === 'object' ? (v as Node) : {});

/** The document read and checked: `{ errors }` non-empty means the authority rejects it. */
export function checkDocument(xml: string, model: 55 | 65): { doc: ReadDocument | null; errors: FiscalRejectionReason[] } {
  const errors: FiscalRejectionReason[] = [];
  let root: Node;
  try {
    root = node(parser.parse(xml));
  } catch {
    return { doc: null, errors: [{ code: '225', message: 'Rejeição: Falha no Schema XML da NF-e' }] };
  }
  const inf = node(node(root.NFe).infNFe);
  const ide = node(inf.ide);
  const emit = node(inf.emit);
  const dest = node(inf.dest);
  const tot = node(node(inf.total).ICMSTot);
  const dets = Array.isArray(inf.det) ? (inf.det as Node[]) : [];
  if (!inf['@Id'] || !ide.nNF || dets.length === 0 || !tot.vNF) {
    return { doc: null, errors: [{ code: '225', message: 'Rejeição: Falha no Schema XML da NF-e' }] };
  }
  const id = text(inf['@Id']);
  const key = id.replace(/^NFe/, '');
  if (!/^\d{44}$/.test(key)) errors.push({ code: '225', message: 'Rejeição: Falha no Schema XML (Id do infNFe)', field: 'infNFe/@Id' });
  else if (mod11(key.slice(0, 43)) !== Number(key[43])) {
    errors.push({ code: '253', message: 'Rejeição: Digito Verificador da chave de acesso composta inválido', field: 'infNFe/@Id' });
  } else {
    const dh = text(ide.dhEmi);
    const expected = `${text(ide.cUF)}${dh.slice(2, 4)}${dh.slice(5, 7)}${text(emit.CNPJ)}${text(ide.mod)}${text(ide.serie).padStart(3, '0')}${text(ide.nNF).padStart(9, '0')}${text(ide.tpEmis)}${text(ide.cNF)}`;
    if (key.slice(0, 43) !== expected) errors.push({ code: '502', message: 'Rejeição: Erro na Chave de Acesso - Campo Id não corresponde à concatenação dos campos correspondentes', field: 'infNFe/@Id' });
    if (text(ide.cDV) !== key[43]) errors.push({ code: '253', message: 'Rejeição: Digito Verificador da chave de acesso composta inválido', field: 'ide/cDV' });
  }
  if (Number(text(ide.mod)) !== model) errors.push({ code: '598', message: `Rejeição: modelo ${text(ide.mod)} enviado ao serviço do modelo ${model}`, field: 'ide/mod' });
  if (!isValidCnpj(text(emit.CNPJ))) errors.push({ code: '207', message: 'Rejeição: CNPJ do emitente inválido', field: 'emit/CNPJ' });
  if (dest.CPF !== undefined && !isValidCpf(text(dest.CPF))) errors.push({ code: '237', message: 'Rejeição: CPF do destinatário inválido', field: 'dest/CPF' });
  if (dest.CNPJ !== undefined && !isValidCnpj(text(dest.CNPJ))) errors.push({ code: '208', message: 'Rejeição: CNPJ do destinatário inválido', field: 'dest/CNPJ' });
  if (model === 55 && dest.CPF === undefined && dest.CNPJ === undefined) errors.push({ code: '719', message: 'Rejeição: NF-e sem a identificação do destinatário', field: 'dest' });

  let sumProd = 0;
  let sumDesc = 0;
  let sumOutro = 0;
  const items: ReadDocument['items'] = [];
  dets.forEach((det, i) => {
    const prod = node(det.prod);
    const at = `det[${i + 1}]/prod`;
    if (!/^\d{8}$/.test(text(prod.NCM))) errors.push({ code: '778', message: 'Rejeição: Informado NCM inexistente', field: `${at}/NCM` });
    if (!/^[567]\d{3}$/.test(text(prod.CFOP))) errors.push({ code: '321', message: 'Rejeição: CFOP inválido para uma operação de saída', field: `${at}/CFOP` });
    const vProd = cents(prod.vProd);
    const q = Number(text(prod.qCom));
    const unit = Number(text(prod.vUnCom));
    if (vProd === null || !Number.isFinite(q) || !Number.isFinite(unit) || Math.abs(Math.round(q * unit * 100) - vProd) > 1) {
      errors.push({ code: '629', message: 'Rejeição: Valor do Produto difere do produto Valor Unitário de Comercialização e Quantidade Comercial', field: `${at}/vProd` });
    }
    sumProd += vProd ?? 0;
    sumDesc += cents(prod.vDesc ?? '0') ?? 0;
    sumOutro += cents(prod.vOutro ?? '0') ?? 0;
    items.push({ name: text(prod.xProd), quantity: text(prod.qCom), totalCents: vProd ?? 0 });
  });
  const [vProd, vDesc, vOutro, vNF] = [cents(tot.vProd), cents(tot.vDesc), cents(tot.vOutro), cents(tot.vNF)];
  if (vProd !== sumProd) errors.push({ code: '564', message: 'Rejeição: Total do Produto / Serviço difere do somatório dos itens', field: 'total/ICMSTot/vProd' });
  if (vDesc !== sumDesc) errors.push({ code: '536', message: 'Rejeição: Total do Desconto difere do somatório dos itens', field: 'total/ICMSTot/vDesc' });
  if (vOutro !== sumOutro) errors.push({ code: '537', message: 'Rejeição: Total de Outras Despesas difere do somatório dos itens', field: 'total/ICMSTot/vOutro' });
  if (vNF === null || vNF !== (vProd ?? 0) - (vDesc ?? 0) + (vOutro ?? 0)) errors.push({ code: '610', message: 'Rejeição: Total da NF difere do somatório dos Valores compõe o valor Total da NF', field: 'total/ICMSTot/vNF' });
  const pags = Array.isArray(node(inf.pag).detPag) ? (node(inf.pag).detPag as Node[]) : [];
  const paid = pags.reduce((s, p) => s + (cents(p.vPag) ?? 0), 0);
  if (model === 65 && paid < (vNF ?? 0)) errors.push({ code: '865', message: 'Rejeição: Total dos pagamentos menor que o total da nota', field: 'pag' });

  const doc: ReadDocument = {
    accessKey: key,
    model: Number(text(ide.mod)),
    series: Number(text(ide.serie)),
    number: Number(text(ide.nNF)),
    cnpj: text(emit.CNPJ),
    totalCents: vNF ?? 0,
    itemCount: dets.length,
    emitterName: text(emit.xNome),
    items,
    parsed: root,
  };
  return { doc, errors };
}
