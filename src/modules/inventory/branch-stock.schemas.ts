import { Type, type Static } from '@sinclair/typebox';
import { STOCK_UNITS } from '../../db/schema/inventory.js';
import { pageLimits, pageQuery } from '../../platform/pagination.js';
import { Body, Id, Nullable, StringEnum } from '../../platform/schemas.js';

/**
 * Stock per PDV (spec 2 "BranchStock", 4.8 "Branch stock"). Quantities are numbers with at most 3
 * decimals (the service refuses more, naming the field), kept as thousandths behind the API.
 */

/** The largest quantity a request may carry (a billion units), so sums stay exact in thousandths. */
export const MAX_QUANTITY = 1_000_000_000;

const Quantity = (description: string, minimum = 0) => Type.Number({ minimum, maximum: MAX_QUANTITY, description: `${description}; at most 3 decimals` });

export const BranchStockParams = Type.Object({ slug: Type.String({ maxLength: 64 }), pdvId: Id });
export const BranchStockItemParams = Type.Object({ slug: Type.String({ maxLength: 64 }), pdvId: Id, itemId: Id });

/** One row per item and PDV: grows with the catalog times the PDVs; the panel lists it whole, so the default is the maximum. */
export const BRANCH_STOCK_PAGE = pageLimits({ default: 500, maximum: 500, what: 'rows' });
export const BranchStockPageQuery = Type.Object(pageQuery(BRANCH_STOCK_PAGE));

export const BranchStockQuery = Type.Object({
  ...pageQuery(BRANCH_STOCK_PAGE),
  pdv: Type.Optional(Id),
  item: Type.Optional(Id),
});

export const BranchStock = Type.Object({
  _id: Id,
  item: Type.Object({ _id: Id, name: Type.String(), sku: Type.String(), unit: StringEnum(STOCK_UNITS) }),
  pdv: Type.Object({ _id: Id, name: Type.String() }),
  physicalQuantity: Type.Number(),
  /** Physical minus reserved. */
  availableQuantity: Type.Number(),
  /** Null: no minimum, so no alert. */
  minQuantity: Nullable(Type.Number()),
});
export type BranchStockView = Static<typeof BranchStock>;

export const UpsertBranchStockBody = Body({
  itemId: Id,
  physicalQuantity: Quantity('the counted physical stock at the PDV'),
  minQuantity: Type.Optional(Nullable(Quantity('alert at or below it; null removes the minimum; omitted keeps it'))),
});
export type UpsertBranchStockInput = Static<typeof UpsertBranchStockBody>;

export const AdjustBranchStockBody = Body({
  itemId: Id,
  delta: Type.Number({ minimum: -MAX_QUANTITY, maximum: MAX_QUANTITY, description: 'signed change of physical stock, not 0; at most 3 decimals' }),
});
export type AdjustBranchStockInput = Static<typeof AdjustBranchStockBody>;

export const TransferBranchStockBody = Body({
  fromPdvId: Id,
  toPdvId: Id,
  itemId: Id,
  quantity: Quantity('how much moves from the source PDV to the target', 0.001),
});
export type TransferBranchStockInput = Static<typeof TransferBranchStockBody>;

export const BranchStockTransfer = Type.Object({ from: BranchStock, to: BranchStock });

export const BranchStockDeleted = Type.Object({ deleted: Type.Boolean() });
