import { Type, type Static } from '@sinclair/typebox';
import { FISCAL_STATUSES, FISCAL_TYPES } from '../../db/schema/fiscal.js';
import { Body, Id, Nullable, StringEnum, Timestamp } from '../../platform/schemas.js';

export const EmitBody = Body({
  orderId: Id,
  tipo: StringEnum(FISCAL_TYPES, { description: 'nfce (model 65, authorised at once) or nfe (model 55, pending then authorised by the queue)' }),
  customerCpf: Type.Optional(Type.String({ pattern: '^[0-9]{11}$', description: '11 digits without formatting; its check digits are the authority’s to check (422)' })),
});
export type EmitInput = Static<typeof EmitBody>;

export const ListFiscalQuery = Type.Object(
  {
    status: Type.Optional(StringEnum(FISCAL_STATUSES)),
    page: Type.Integer({ minimum: 1, maximum: 100_000, default: 1 }),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  },
  { additionalProperties: false },
);
export type ListFiscalInput = Static<typeof ListFiscalQuery>;

const ErrorDetail = Type.Object({ code: Type.String(), message: Type.String(), field: Type.Optional(Type.String()) });

export const FiscalDoc = Type.Object(
  {
    _id: Type.String(),
    order: Nullable(Type.Object({ _id: Type.String(), orderNumber: Type.String(), total: Type.Integer({ description: 'cents' }), customerName: Nullable(Type.String()) })),
    tenant: Type.String(),
    tipo: StringEnum(FISCAL_TYPES),
    status: StringEnum(FISCAL_STATUSES),
    nfeKey: Type.String({ description: '44-digit access key' }),
    nfeNumber: Type.String(),
    serie: Type.String(),
    model: Type.Integer({ description: '55 (NF-e) or 65 (NFC-e)' }),
    branch: Nullable(Type.String(), { description: 'the branch whose numbering it takes (null: the tenant’s own)' }),
    customerCpf: Nullable(Type.String()),
    total: Type.Integer({ description: 'cents' }),
    danfeUrl: Nullable(Type.String({ description: 'authorised (or cancelled) documents only' })),
    xmlUrl: Nullable(Type.String({ description: 'authorised (or cancelled) documents only' })),
    providerRef: Type.String(),
    protocol: Nullable(Type.String()),
    errorDetails: Nullable(Type.Object({ message: Type.String(), errors: Type.Array(ErrorDetail) })),
    attempts: Type.Integer({ description: 'sends to the provider so far' }),
    emittedAt: Nullable(Timestamp),
    authorizedAt: Nullable(Timestamp),
    cancelledAt: Nullable(Timestamp),
    createdAt: Timestamp,
  },
  { description: 'FiscalDoc' },
);
export type FiscalDocView = Static<typeof FiscalDoc>;

export const FiscalRejection = Type.Object({
  statusCode: Type.Literal(422),
  error: Type.String(),
  message: Type.String(),
  code: Type.String(),
  errorDetails: Type.Object({ message: Type.String(), errors: Type.Array(ErrorDetail) }),
  document: Type.Optional(FiscalDoc),
});

export const CancelResult = Type.Object({ _id: Type.String(), status: Type.Literal('cancelled') });

export const QueueStats = Type.Object({
  waiting: Type.Integer({ description: 'ready to run, or waiting for a retry' }),
  active: Type.Integer(),
  completed: Type.Integer(),
  failed: Type.Integer(),
});
