import { Type, type Static } from '@sinclair/typebox';
import { STOCK_UNITS } from '../../db/schema/inventory.js';
import { SUGGESTION_STATUSES } from '../../db/schema/purchasing.js';
import { CalendarDate, Id, Nullable, StringEnum, Timestamp } from '../../platform/schemas.js';
import { FORECAST_METHODS, TRENDS } from './forecast.model.js';

/** Days ahead a forecast covers. */
export const MAX_HORIZON = 90;

export const HorizonQuery = Type.Object({
  horizon: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_HORIZON, default: 7, description: 'days ahead, 1 to 90, default 7' })),
});

export const BuildSnapshotQuery = Type.Object({
  day: Type.Optional(CalendarDate('a past local day to build (default yesterday), at most 90 days back')),
});

const Mape = Nullable(Type.Number({ description: 'mean absolute percentage error of the one-step-ahead backtest over the last 28 days, percent' }));

/** Spec 4.8 DemandForecast, with the method used and both backtest errors. */
export const DemandForecast = Type.Object({
  menuItemId: Type.String(),
  menuItemName: Type.String(),
  avgDaily: Type.Number({ description: 'units a day over the horizon (predicted / horizon), 3 decimals' }),
  predicted: Type.Number({ description: 'units over the horizon, 3 decimals' }),
  confidence: Type.Number({ description: 'min(1, days of data in the 28-day window / 21)' }),
  trend: StringEnum(TRENDS, { description: 'last 7 days against the 7 before: over +10 % up, under -10 % down' }),
  method: StringEnum(FORECAST_METHODS, { description: 'wma: weighted moving average; weekday: the same weekday of the last 4 weeks' }),
  mape: Type.Object({ wma: Mape, weekday: Mape }),
  dataPoints: Type.Integer({ description: 'days of sales history in the 28-day window' }),
});

/** Spec 4.8 IngredientDemand. */
export const IngredientDemand = Type.Object({
  inventoryItemId: Type.String(),
  itemName: Type.String(),
  unit: StringEnum(STOCK_UNITS),
  currentStock: Type.Number({ description: 'physical stock' }),
  availableQuantity: Type.Number({ description: 'currentStock minus reserved' }),
  minStock: Type.Number(),
  predictedDemand: Type.Number({ description: 'over the horizon, in `unit`: predicted units of each dish x its recipe' }),
  daysUntilStockout: Type.Number({ description: 'availableQuantity / (predictedDemand / horizon), 1 decimal, rounded down; 0 when nothing is available' }),
  suggestedOrder: Type.Number({ description: 'max(0, predictedDemand + minStock - availableQuantity)' }),
  estimatedCost: Type.Integer({ description: 'suggestedOrder x cost, cents' }),
});

export const SuggestedPurchaseOrder = Type.Object({
  _id: Type.String(),
  status: StringEnum(SUGGESTION_STATUSES),
  horizonDays: Type.Integer(),
  items: Type.Array(IngredientDemand),
  totalCost: Type.Integer({ description: 'sum of the items’ estimatedCost, cents' }),
  purchaseOrder: Nullable(Type.String({ description: 'the draft purchase order made on approval' })),
  decidedBy: Nullable(Type.String()),
  decidedAt: Nullable(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const SUGGESTION_ACTIONS = ['approve', 'dismiss'] as const;
export const SuggestionActionParams = Type.Object({ slug: Type.String({ maxLength: 64 }), id: Id, action: StringEnum(SUGGESTION_ACTIONS) });

export const BuildResult = Type.Object({ message: Type.String() });

export type DemandForecastView = Static<typeof DemandForecast>;
export type IngredientDemandView = Static<typeof IngredientDemand>;
export type SuggestedPurchaseOrderView = Static<typeof SuggestedPurchaseOrder>;
export type SuggestionAction = (typeof SUGGESTION_ACTIONS)[number];
