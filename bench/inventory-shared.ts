/**
 * What bench/inventory-run.ts and bench/inventory-server.ts share: the recipe the benchmark dish uses,
 * the quantity sold per order, the starting stock and the server's `ready` message.
 */
import type { QuantityUnit, StockUnit } from '../src/db/schema/inventory.js';

/** Units of the dish sold per order (the same on both sides). */
export const QUANTITY = 2;
/** The breakdown's dish uses only the first item of RECIPE, as much as the full recipe does. */
export const SINGLE = 0;
/** Stock of every item at the start: 10^9 stock units, so no run gets near a shortfall. */
export const START_MILLI = 1_000_000_000_000;

/**
 * The recipe of the dish: 10 ingredients, as a kitchen writes them, and what one order (QUANTITY units)
 * takes of each in thousandths of the item's stock unit, worked out by hand (every value exact, no rounding).
 */
export const RECIPE: { name: string; unit: StockUnit; packSize?: number; quantity: number; in: QuantityUnit; perOrderMilli: number }[] = [
  { name: 'Bench picanha', unit: 'kg', quantity: 180, in: 'g', perOrderMilli: 360 }, // 2 x 180 g = 0.360 kg
  { name: 'Bench arroz', unit: 'kg', quantity: 120, in: 'g', perOrderMilli: 240 },
  { name: 'Bench feijão', unit: 'kg', quantity: 0.1, in: 'kg', perOrderMilli: 200 },
  { name: 'Bench farofa', unit: 'kg', quantity: 35, in: 'g', perOrderMilli: 70 },
  { name: 'Bench sal', unit: 'kg', quantity: 1.5, in: 'g', perOrderMilli: 3 }, // 2 x 1.5 g = 0.003 kg
  { name: 'Bench azeite', unit: 'l', quantity: 15, in: 'ml', perOrderMilli: 30 },
  { name: 'Bench vinagre', unit: 'l', quantity: 5, in: 'ml', perOrderMilli: 10 },
  { name: 'Bench pão', unit: 'un', quantity: 1, in: 'un', perOrderMilli: 2000 },
  { name: 'Bench ovo', unit: 'un', packSize: 12, quantity: 0.084, in: 'cx', perOrderMilli: 2016 }, // 2 x 0.084 box x 12 = 2.016 eggs
  { name: 'Bench guardanapo', unit: 'un', quantity: 2, in: 'un', perOrderMilli: 4000 },
];

export interface OrderBody {
  orderType: 'takeout';
  customerName: string;
  items: { menuItem: string; quantity: number }[];
}

export interface InventoryReadyMessage {
  type: 'ready';
  appUrl: string;
  token: string;
  tenantId: string;
  /** The orders the sides send: the dish with the recipe, the dish without, and (breakdown) a dish of one ingredient. */
  bodies: { recipe: OrderBody; plain: OrderBody; single: OrderBody };
  /** The 10 items' ids, in RECIPE order. */
  itemIds: string[];
}
