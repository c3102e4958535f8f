/**
 * The fiscal provider: an NF-e / NFC-e API in the style of the Brazilian providers (Focus NFe, NFe.io...).
 * Each tenant authenticates with its own token (HTTP Basic, the token as user name, empty password). One
 * unique reference (`ref`) per document: sending the same ref again returns the document as it is, never a
 * second one. NFC-e (model 65) is authorised synchronously; NF-e (model 55) answers `processing` and is
 * authorised later (read it with `get`).
 *
 *   POST   /v2/{nfe|nfce}?ref=REF          { xml }                       the signed-to-be XML (layout 4.00)
 *   GET    /v2/{nfe|nfce}/REF                                            its status
 *   GET    /v2/{nfe|nfce}/REF/xml | /danfe                               the authorised XML (nfeProc), the DANFE (PDF, base64)
 *   DELETE /v2/{nfe|nfce}/REF              { justificativa }             cancellation (422 after the legal deadline)
 *   POST   /v2/{nfe|nfce}/inutilizacao     { cnpj, serie, numero_inicial, numero_final, justificativa }
 *
 * Statuses on the wire: `processando_autorizacao`, `autorizado`, `erro_autorizacao`, `cancelado`.
 */
import { badResponse, callProvider, errorForStatus, isOk, joinUrl, silentLogger, type FetchLike, type ProviderLogger, type ProviderResponse } from '../http.js';
import { FISCAL_PROVIDER_TIMEOUT_MS } from './config.js';
import { FiscalProviderError } from './errors.js';

export type FiscalDocKind = 'nfe' | 'nfce';
export type ProviderDocStatus = 'processing' | 'authorized' | 'rejected' | 'cancelled';

/** One reason the authority gave (SEFAZ `cStat` as `code`). */
export interface FiscalRejectionReason {
  code: string;
  message: string;
  /** The XML element it is about (`dest/CPF`, `det[2]/prod/NCM`), when known. */
  field?: string;
}

export interface ProviderDocument {
  ref: string;
  kind: FiscalDocKind;
  status: ProviderDocStatus;
  accessKey: string;
  /** Authorisation (or cancellation) protocol number. */
  protocol: string | null;
  authorizedAt: string | null;
  /** Why it was rejected (empty unless `rejected`). */
  errors: FiscalRejectionReason[];
}

export interface CancelResult {
  ref: string;
  status: 'cancelled';
  protocol: string;
}

export interface VoidNumbersInput {
  cnpj: string;
  series: number;
  from: number;
  to: number;
  reason: string;
}

export interface FiscalClient {
  /** Sends the document (idempotent by `ref`). Refused (4xx) only for a bad token or malformed request: an authority rejection is a `rejected` document. */
  emit(token: string, kind: FiscalDocKind, ref: string, xml: string): Promise<ProviderDocument>;
  get(token: string, kind: FiscalDocKind, ref: string): Promise<ProviderDocument>;
  /** The authorised XML (nfeProc: the NF-e and its protocol). */
  xml(token: string, kind: FiscalDocKind, ref: string): Promise<string>;
  /** The DANFE (NFC-e: DANFE NFC-e), a PDF. */
  danfe(token: string, kind: FiscalDocKind, ref: string): Promise<Buffer>;
  /** Cancels an authorised document. Refused with code `cancel_deadline_expired` (422) after the legal deadline. */
  cancel(token: string, kind: FiscalDocKind, ref: string, reason: string): Promise<CancelResult>;
  /** Voids ("inutilização") numbers that will never be used. */
  voidNumbers(token: string, kind: FiscalDocKind, input: VoidNumbersInput): Promise<{ protocol: string }>;
}

const WIRE_STATUS: Record<string, ProviderDocStatus> = {
  processando_autorizacao: 'processing',
  autorizado: 'authorized',
  erro_autorizacao: 'rejected',
  cancelado: 'cancelled',
};

/** A document as the provider sends it, or null when the body is not one. */
export function readProviderDocument(body: unknown): ProviderDocument | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as Record<string, unknown>;
  const status = WIRE_STATUS[String(b.status)];
  if (!status || typeof b.ref !== 'string' || (b.tipo !== 'nfe' && b.tipo !== 'nfce')) return null;
  const errors = Array.isArray(b.erros)
    ? b.erros.flatMap((e: Record<string, unknown>) =>
        e && typeof e === 'object' ? [{ code: String(e.codigo ?? ''), message: String(e.mensagem ?? ''), ...(e.campo ? { field: String(e.campo) } : {}) }] : [],
      )
    : [];
  return {
    ref: b.ref,
    kind: b.tipo,
    status,
    accessKey: typeof b.chave === 'string' ? b.chave : '',
    protocol: typeof b.protocolo === 'string' ? b.protocolo : null,
    authorizedAt: typeof b.data_autorizacao === 'string' ? b.data_autorizacao : null,
    errors,
  };
}

export interface HttpFiscalClientOptions {
  baseUrl: string;
  timeoutMs?: number;
  fetch?: FetchLike;
  log?: ProviderLogger;
}

const REF = /^[A-Za-z0-9_-]{1,64}$/;

export class HttpFiscalClient implements FiscalClient {
  readonly baseUrl: string;
  private readonly fetch: FetchLike;
  private readonly timeoutMs: number;
  private readonly log: ProviderLogger;

  constructor(opts: HttpFiscalClientOptions) {
    this.baseUrl = opts.baseUrl;
    this.fetch = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.timeoutMs = opts.timeoutMs ?? FISCAL_PROVIDER_TIMEOUT_MS;
    this.log = opts.log ?? silentLogger;
  }

  private call(token: string, method: string, path: string, body?: object): Promise<ProviderResponse> {
    if (!token) throw new FiscalProviderError('refused', 'fiscal_provider: no token', { code: 'invalid_request' });
    return callProvider({
      errors: FiscalProviderError,
      fetch: this.fetch,
      method,
      url: joinUrl(this.baseUrl, path),
      headers: {
        authorization: `Basic ${Buffer.from(`${token}:`).toString('base64')}`,
        accept: 'application/json',
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
      timeoutMs: this.timeoutMs,
    });
  }

  private document(res: ProviderResponse, operation: string, ref: string): ProviderDocument {
    if (!isOk(res.status)) throw failure(operation, res);
    const doc = readProviderDocument(res.body);
    if (!doc) throw badResponse(FiscalProviderError, operation, res, 'not a document');
    if (doc.ref !== ref) throw badResponse(FiscalProviderError, operation, res, `document ${doc.ref}, not ${ref}`);
    return doc;
  }

  async emit(token: string, kind: FiscalDocKind, ref: string, xml: string) {
    checkRef(ref);
    const doc = this.document(await this.call(token, 'POST', `/v2/${kind}?ref=${ref}`, { xml }), 'emit', ref);
    this.log.info({ ref, kind, status: doc.status }, 'fiscal_provider document sent');
    return doc;
  }

  async get(token: string, kind: FiscalDocKind, ref: string) {
    checkRef(ref);
    return this.document(await this.call(token, 'GET', `/v2/${kind}/${ref}`), 'get', ref);
  }

  async xml(token: string, kind: FiscalDocKind, ref: string) {
    checkRef(ref);
    const res = await this.call(token, 'GET', `/v2/${kind}/${ref}/xml`);
    if (!isOk(res.status)) throw failure('xml', res);
    const xml = (res.body as { xml?: unknown } | null)?.xml;
    if (typeof xml !== 'string' || !xml.startsWith('<')) throw badResponse(FiscalProviderError, 'xml', res, 'no xml');
    return xml;
  }

  async danfe(token: string, kind: FiscalDocKind, ref: string) {
    checkRef(ref);
    const res = await this.call(token, 'GET', `/v2/${kind}/${ref}/danfe`);
    if (!isOk(res.status)) throw failure('danfe', res);
    const b64 = (res.body as { base64?: unknown } | null)?.base64;
    const pdf = typeof b64 === 'string' ? Buffer.from(b64, 'base64') : null;
    if (!pdf || pdf.subarray(0, 5).toString() !== '%PDF-') throw badResponse(FiscalProviderError, 'danfe', res, 'not a PDF');
    return pdf;
  }

  async cancel(token: string, kind: FiscalDocKind, ref: string, reason: string) {
    checkRef(ref);
    const res = await this.call(token, 'DELETE', `/v2/${kind}/${ref}`, { justificativa: reason });
    const doc = this.document(res, 'cancel', ref);
    if (doc.status !== 'cancelled') throw badResponse(FiscalProviderError, 'cancel', res, `status ${doc.status}`);
    this.log.info({ ref, kind }, 'fiscal_provider document cancelled');
    return { ref, status: 'cancelled' as const, protocol: doc.protocol ?? '' };
  }

  async voidNumbers(token: string, kind: FiscalDocKind, input: VoidNumbersInput) {
    const res = await this.call(token, 'POST', `/v2/${kind}/inutilizacao`, {
      cnpj: input.cnpj,
      serie: input.series,
      numero_inicial: input.from,
      numero_final: input.to,
      justificativa: input.reason,
    });
    if (!isOk(res.status)) throw failure('void numbers', res);
    const protocol = (res.body as { protocolo?: unknown } | null)?.protocolo;
    if (typeof protocol !== 'string') throw badResponse(FiscalProviderError, 'void numbers', res, 'no protocol');
    return { protocol };
  }
}

/** A non-2xx answer as the provider's error, its `codigo` / `mensagem` read as code and message. */
function failure(operation: string, res: ProviderResponse) {
  const b = res.body && typeof res.body === 'object' ? (res.body as Record<string, unknown>) : null;
  const body = b && typeof b.codigo === 'string' ? { code: b.codigo, message: typeof b.mensagem === 'string' ? b.mensagem : undefined } : res.body;
  return errorForStatus(FiscalProviderError, operation, { ...res, body });
}

function checkRef(ref: string) {
  if (!REF.test(ref)) throw new FiscalProviderError('refused', 'fiscal_provider: ref must be 1 to 64 letters, digits, - or _', { code: 'invalid_request' });
}
