/**
 * fiscal_provider simulator: plays an NF-e / NFC-e provider and the authority behind it with the same
 * protocol as the client (`../client.ts`), so emission can be tested and demonstrated without a SEFAZ.
 * It validates what the authority validates (`authority.ts`), authorises NFC-e at once and NF-e on the
 * first status query after the sending, serves the authorised XML (nfeProc) and a DANFE PDF, refuses a
 * cancellation after the legal deadline (NFC-e 30 minutes, NF-e 24 hours, by its clock), voids numbers,
 * and can be made unavailable (`setAvailable(false)`: every protocol call answers 503).
 *
 * Any non-empty token is accepted; a document is visible to the token that sent it only (404 otherwise).
 */
import { randomInt } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import PDFDocument from 'pdfkit';
import { systemClock, type Clock } from '../../../platform/clock.js';
import { controlApi, hide, objectBody, send, simulatorServers, type SimulatorRoutesOptions, type SimulatorServer } from '../../simulator/server.js';
import type { FiscalDocKind, FiscalRejectionReason } from '../client.js';
import { checkDocument, type ReadDocument } from './authority.js';

/** Legal cancellation deadlines. */
export const CANCEL_DEADLINE_MS: Record<FiscalDocKind, number> = { nfce: 30 * 60_000, nfe: 24 * 3_600_000 };

export interface SimFiscalDoc {
  ref: string;
  kind: FiscalDocKind;
  token: string;
  status: 'processando_autorizacao' | 'autorizado' | 'erro_autorizacao' | 'cancelado';
  accessKey: string;
  xml: string;
  read: ReadDocument | null;
  errors: FiscalRejectionReason[];
  protocol: string | null;
  receivedAt: Date;
  authorizedAt: Date | null;
  cancelledAt: Date | null;
}

export interface SimNumberVoid {
  token: string;
  kind: FiscalDocKind;
  cnpj: string;
  series: number;
  from: number;
  to: number;
  reason: string;
  protocol: string;
}

export interface FiscalSimulator extends SimulatorServer {
  /** false: every protocol call answers 503 until set back. */
  setAvailable(available: boolean): void;
  get(ref: string): SimFiscalDoc | undefined;
  list(): SimFiscalDoc[];
  voids(): SimNumberVoid[];
}

const MODEL: Record<FiscalDocKind, 55 | 65> = { nfe: 55, nfce: 65 };

export function createFiscalSimulator(opts: { clock?: Clock } = {}): FiscalSimulator {
  const clock = opts.clock ?? systemClock;
  const docs = new Map<string, SimFiscalDoc>();
  const numberVoids: SimNumberVoid[] = [];
  let available = true;
  const protocol = () => `1${String(clock.now().getFullYear()).slice(2)}${String(randomInt(1e9)).padStart(9, '0')}${String(randomInt(1e3)).padStart(3, '0')}`;

  const view = (d: SimFiscalDoc) => ({
    ref: d.ref,
    tipo: d.kind,
    status: d.status,
    chave: d.accessKey,
    numero: d.read ? String(d.read.number) : null,
    serie: d.read ? String(d.read.series) : null,
    protocolo: d.protocol,
    data_autorizacao: d.authorizedAt?.toISOString() ?? null,
    mensagem_sefaz: d.status === 'erro_autorizacao' ? d.errors.map((e) => `${e.code} ${e.message}`).join('; ') : d.status === 'autorizado' ? '100 Autorizado o uso da NF-e' : null,
    erros: d.errors.map((e) => ({ codigo: e.code, mensagem: e.message, ...(e.field ? { campo: e.field } : {}) })),
  });

  const authorize = (d: SimFiscalDoc) => {
    d.status = 'autorizado';
    d.authorizedAt = clock.now();
    d.protocol = protocol();
  };

  /** The token of HTTP Basic (user name, empty password); null when missing. */
  function tokenOf(req: FastifyRequest): string | null {
    const m = /^Basic\s+([A-Za-z0-9+/=]+)$/.exec(req.headers.authorization ?? '');
    if (!m) return null;
    const user = Buffer.from(m[1], 'base64').toString().split(':')[0];
    return user || null;
  }

  function guard(req: FastifyRequest, reply: FastifyReply): string | null {
    if (!available) {
      void send(reply, 503, { codigo: 'servico_indisponivel', mensagem: 'Serviço temporariamente indisponível' });
      return null;
    }
    const token = tokenOf(req);
    if (!token) {
      void send(reply, 401, { codigo: 'nao_autorizado', mensagem: 'Token de acesso inválido' });
      return null;
    }
    return token;
  }

  const kindOf = (v: unknown): FiscalDocKind | null => (v === 'nfe' || v === 'nfce' ? v : null);
  const find = (token: string, kind: FiscalDocKind, ref: string) => {
    const d = docs.get(ref);
    return d && d.token === token && d.kind === kind ? d : undefined;
  };
  const notFound = (reply: FastifyReply) => send(reply, 404, { codigo: 'nao_encontrado', mensagem: 'Nota fiscal não encontrada' });

  async function routes(app: FastifyInstance, ropts: SimulatorRoutesOptions = {}) {
    app.post('/v2/:kind', hide, async (req, reply) => {
      const token = guard(req, reply);
      if (!token) return reply;
      const kind = kindOf((req.params as { kind: string }).kind);
      const ref = String((req.query as { ref?: string }).ref ?? '');
      const xml = objectBody(req).xml;
      if (!kind || !/^[A-Za-z0-9_-]{1,64}$/.test(ref) || typeof xml !== 'string') {
        return send(reply, 400, { codigo: 'requisicao_invalida', mensagem: 'ref, tipo e xml são obrigatórios' });
      }
      const existing = docs.get(ref);
      if (existing) {
        if (existing.token !== token || existing.kind !== kind) return send(reply, 409, { codigo: 'referencia_em_uso', mensagem: 'Referência já usada' });
        return send(reply, 200, view(existing));
      }
      const { doc, errors } = checkDocument(xml, MODEL[kind]);
      const d: SimFiscalDoc = {
        ref,
        kind,
        token,
        status: errors.length ? 'erro_autorizacao' : 'processando_autorizacao',
        accessKey: doc?.accessKey ?? '',
        xml,
        read: doc,
        errors,
        protocol: null,
        receivedAt: clock.now(),
        authorizedAt: null,
        cancelledAt: null,
      };
      if (!errors.length && kind === 'nfce') authorize(d); // NFC-e: synchronous
      docs.set(ref, d);
      return send(reply, kind === 'nfe' && !errors.length ? 202 : 201, view(d));
    });

    app.post('/v2/:kind/inutilizacao', hide, async (req, reply) => {
      const token = guard(req, reply);
      if (!token) return reply;
      const kind = kindOf((req.params as { kind: string }).kind);
      const b = objectBody(req);
      const [from, to, series] = [Number(b.numero_inicial), Number(b.numero_final), Number(b.serie)];
      const reason = typeof b.justificativa === 'string' ? b.justificativa : '';
      if (!kind || typeof b.cnpj !== 'string' || ![from, to, series].every(Number.isInteger) || from < 1 || to < from || reason.length < 15) {
        return send(reply, 400, { codigo: 'requisicao_invalida', mensagem: 'cnpj, serie, numero_inicial, numero_final e justificativa (15 caracteres) são obrigatórios' });
      }
      const used = [...docs.values()].some(
        (d) => d.token === token && d.kind === kind && d.status !== 'erro_autorizacao' && d.read !== null && d.read.cnpj === b.cnpj && d.read.series === series && d.read.number >= from && d.read.number <= to,
      );
      if (used) return send(reply, 422, { codigo: '241', mensagem: 'Rejeição: Um número da faixa já foi utilizado' });
      const v: SimNumberVoid = { token, kind, cnpj: b.cnpj, series, from, to, reason, protocol: protocol() };
      numberVoids.push(v);
      return send(reply, 200, { status: 'autorizado', protocolo: v.protocol });
    });

    app.get('/v2/:kind/:ref', hide, async (req, reply) => {
      const token = guard(req, reply);
      if (!token) return reply;
      const { kind, ref } = req.params as { kind: string; ref: string };
      const d = kindOf(kind) && find(token, kind as FiscalDocKind, ref);
      if (!d) return notFound(reply);
      if (d.status === 'processando_autorizacao') authorize(d); // NF-e: authorised by the time it is asked about
      return send(reply, 200, view(d));
    });

    app.get('/v2/:kind/:ref/xml', hide, async (req, reply) => {
      const token = guard(req, reply);
      if (!token) return reply;
      const { kind, ref } = req.params as { kind: string; ref: string };
      const d = kindOf(kind) && find(token, kind as FiscalDocKind, ref);
      if (!d || (d.status !== 'autorizado' && d.status !== 'cancelado')) return notFound(reply);
      return send(reply, 200, { xml: nfeProc(d) });
    });

    app.get('/v2/:kind/:ref/danfe', hide, async (req, reply) => {
      const token = guard(req, reply);
      if (!token) return reply;
      const { kind, ref } = req.params as { kind: string; ref: string };
      const d = kindOf(kind) && find(token, kind as FiscalDocKind, ref);
      if (!d || (d.status !== 'autorizado' && d.status !== 'cancelado')) return notFound(reply);
      return send(reply, 200, { contentType: 'application/pdf', base64: (await danfePdf(d)).toString('base64') });
    });

    app.delete('/v2/:kind/:ref', hide, async (req, reply) => {
      const token = guard(req, reply);
      if (!token) return reply;
      const { kind, ref } = req.params as { kind: string; ref: string };
      const d = kindOf(kind) && find(token, kind as FiscalDocKind, ref);
      if (!d) return notFound(reply);
      const reason = objectBody(req).justificativa;
      if (typeof reason !== 'string' || reason.length < 15 || reason.length > 255) {
        return send(reply, 400, { codigo: 'requisicao_invalida', mensagem: 'justificativa de 15 a 255 caracteres' });
      }
      if (d.status === 'cancelado') return send(reply, 200, view(d));
      if (d.status !== 'autorizado') return send(reply, 422, { codigo: 'nota_nao_autorizada', mensagem: 'Rejeição: NF-e não autorizada não pode ser cancelada' });
      if (clock.now().getTime() - d.authorizedAt!.getTime() > CANCEL_DEADLINE_MS[d.kind]) {
        return send(reply, 422, { codigo: 'cancel_deadline_expired', mensagem: 'Rejeição: Prazo de Cancelamento Superior ao Previsto na Legislação (501)' });
      }
      d.status = 'cancelado';
      d.cancelledAt = clock.now();
      d.protocol = protocol();
      return send(reply, 200, view(d));
    });

    await controlApi(app, ropts, (ctl) => {
      ctl.post('/__sim/availability', hide, async (req, reply) => {
        available = objectBody(req).available !== false;
        return send(reply, 200, { available });
      });
      ctl.get('/__sim/documents', hide, async (_req, reply) => send(reply, 200, [...docs.values()].map(view)));
    });
  }

  const { buildServer, listen, closeServers } = simulatorServers(routes);
  return {
    routes,
    buildServer,
    listen,
    close: closeServers,
    setAvailable: (v: boolean) => {
      available = v;
    },
    get: (ref: string) => docs.get(ref),
    list: () => [...docs.values()],
    voids: () => [...numberVoids],
  };
}

/** The distribution XML: the NF-e as sent and the authority's protocol. */
function nfeProc(d: SimFiscalDoc): string {
  const nfe = d.xml.replace(/^<\?xml[^>]*>\s*/, '');
  const prot =
    `<protNFe versao="4.00"><infProt><tpAmb>2</tpAmb><verAplic>SIMULADOR</verAplic><chNFe>${d.accessKey}</chNFe>` +
    `<dhRecbto>${d.authorizedAt!.toISOString()}</dhRecbto><nProt>${d.protocol}</nProt><cStat>100</cStat><xMotivo>Autorizado o uso da NF-e</xMotivo></infProt></protNFe>`;
  return `<?xml version="1.0" encoding="UTF-8"?><nfeProc xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00">${nfe}${prot}</nfeProc>`;
}

/** A simple DANFE (NFC-e or NF-e): emitter, items, total, access key and protocol. */
function danfePdf(d: SimFiscalDoc): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const pdf = new PDFDocument({ size: 'A4', margin: 40, info: { Title: `DANFE ${d.accessKey}` } });
    const chunks: Buffer[] = [];
    pdf.on('data', (c: Buffer) => chunks.push(c));
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
    const r = d.read!;
    pdf.fontSize(14).text(d.kind === 'nfce' ? 'DANFE NFC-e - Documento Auxiliar da Nota Fiscal de Consumidor Eletrônica' : 'DANFE - Documento Auxiliar da Nota Fiscal Eletrônica');
    pdf.moveDown().fontSize(10).text(`${r.emitterName}  CNPJ ${r.cnpj}`);
    pdf.text(`Número ${r.number}  Série ${r.series}  Modelo ${r.model}`);
    pdf.moveDown();
    for (const item of r.items) pdf.text(`${item.name}  ${item.quantity}  R$ ${(item.totalCents / 100).toFixed(2)}`);
    pdf.moveDown().fontSize(12).text(`Valor total R$ ${(r.totalCents / 100).toFixed(2)}`);
    pdf.moveDown().fontSize(9).text(`Chave de acesso: ${d.accessKey.replace(/(\d{4})/g, '$1 ').trim()}`);
    pdf.text(`Protocolo de autorização: ${d.protocol} ${d.authorizedAt?.toISOString() ?? ''}`);
    if (d.status === 'cancelado') pdf.moveDown().fontSize(16).text('CANCELADA');
    pdf.moveDown().text('EMITIDA EM AMBIENTE DE HOMOLOGAÇÃO - SEM VALOR FISCAL (simulador)');
    pdf.end();
  });
}
