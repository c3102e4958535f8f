import { Type, type Static } from '@sinclair/typebox';
import { STOCK_UNITS } from '../../db/schema/inventory.js';
import { Nullable, StringEnum } from '../../platform/schemas.js';

/** Supplier invoice import (spec 4.8 `POST /inventory/import-nfs`): the answer, line by line. */

export const LINE_ACTIONS = ['match', 'create', 'skip', 'review'] as const;
export type LineAction = (typeof LINE_ACTIONS)[number];
export const MATCH_RULES = ['confirmed', 'mapping', 'ean', 'name', 'line'] as const;
export type MatchRule = (typeof MATCH_RULES)[number];

export const ImportNfsQuery = Type.Object({
  dryRun: Type.Optional(Type.Boolean({ description: 'true: answer the proposed matching, line by line, and write nothing (200)' })),
});

const ImportProblem = Type.Object({
  line: Type.Integer({ description: 'det/@nItem of the invoice' }),
  code: Type.String(),
  message: Type.String(),
});

export const ImportLine = Type.Object({
  line: Type.Integer({ description: 'det/@nItem' }),
  supplierCode: Type.String({ description: 'cProd' }),
  description: Type.String({ description: 'xProd' }),
  ean: Nullable(Type.String(), { description: 'cEAN (else cEANTrib) when not "SEM GTIN"' }),
  quantity: Type.Number({ description: 'qCom' }),
  unit: Type.String({ description: 'uCom as written' }),
  unitPrice: Type.Integer({ description: 'vUnCom in cents (rounded)' }),
  action: StringEnum(LINE_ACTIONS, { description: 'match: stock into an existing item; create: a new item; skip: left out as asked; review: needs a mapping' }),
  matchedBy: Nullable(StringEnum(MATCH_RULES), {
    description: 'confirmed: the mappings sent with this request; mapping: remembered; ean; name; line: an item created by an earlier line of this invoice',
  }),
  item: Nullable(
    Type.Object({
      _id: Nullable(Type.String(), { description: 'null while the item is only proposed (dry run)' }),
      name: Type.String(),
      sku: Type.String(),
      unit: StringEnum(STOCK_UNITS),
    }),
  ),
  stockQuantity: Nullable(Type.Number({ description: 'in the item’s unit' })),
  unitCost: Nullable(Type.Integer({ description: 'cents per unit of the item' })),
  previousCost: Nullable(Type.Integer({ description: 'the item’s cost before (null: new item)' })),
  reason: Type.String({ description: 'why this action' }),
});

export const ImportResult = Type.Object({
  success: Type.Boolean({ description: 'true when every line was stocked or skipped as asked (a dry run: when nothing needs review)' }),
  dryRun: Type.Boolean(),
  nfeNumber: Type.String(),
  nfeKey: Type.String(),
  emitter: Type.String({ description: 'the emitter’s name (xNome)' }),
  emitterCnpj: Type.String(),
  total: Type.Integer({ description: 'vNF, cents' }),
  totalItems: Type.Integer({ description: 'lines (det) of the invoice' }),
  created: Type.Integer({ description: 'inventory items created' }),
  updated: Type.Integer({ description: 'existing items whose stock and cost changed' }),
  movements: Type.Integer({ description: 'entry movements written (one a line)' }),
  skipped: Type.Integer({ description: 'lines left out as asked' }),
  errors: Type.Array(ImportProblem, { description: 'what a person should look at, line by line (lines to review, units assumed)' }),
  lines: Type.Array(ImportLine),
});

export type ImportLineView = Static<typeof ImportLine>;
export type ImportResultView = Static<typeof ImportResult>;
export type ImportProblemView = Static<typeof ImportProblem>;
