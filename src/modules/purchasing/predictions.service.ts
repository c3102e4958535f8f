import { newId } from '../../db/ids.js';
import type { SuggestedPurchaseOrderRow } from '../../db/schema/purchasing.js';
import type { TenantDb, TenantTx } from '../../db/scopes.js';
import { Conflict, Invalid, NotFound } from '../../platform/domain-errors.js';
import { fromMilli, milli } from '../../platform/quantity.js';
import { addDays, localDate, localTime, startOfLocalDay } from '../../platform/time.js';
import { convertible, costOf, toStockMilli } from '../inventory/index.js';
import { backtest, forecast, HISTORY_DAYS } from './forecast.model.js';
import { predictionJobs, type BuildSnapshotJob } from './predictions.jobs.js';
import * as q from './predictions.queries.js';
import type { DemandForecastView, IngredientDemandView, SuggestedPurchaseOrderView, SuggestionAction } from './predictions.schemas.js';
import type { PurchaseOrdersPart, PurchasingParts } from './purchasing.service.js';
import { soldInDay } from './snapshots.queries.js';

/** Who acts on predictions: the user (who decides a suggestion) and the tenant's time zone (its days). */
export interface PredictionsCaller {
  userId: string;
  timezone: string;
}

/** The local hour at which the daily snapshot of yesterday is built. */
export const SNAPSHOT_HOUR = '02:00';
/** How far back `POST /snapshots/build?day=` may rebuild a day. */
export const MAX_REBUILD_DAYS = 90;
/** Suggested orders listed at most. */
const SUGGESTIONS_LISTED = 20;

const DAY_MS = 86_400_000;
const daysBetween = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
/** n / d for non-negative bigints, rounded half up. */
const divHalfUp = (n: bigint, d: bigint) => (n * 2n + d) / (2n * d);

function toSuggestionView(r: SuggestedPurchaseOrderRow): SuggestedPurchaseOrderView {
  return {
    _id: r.id,
    status: r.status,
    horizonDays: r.horizonDays,
    items: r.items.map(storedDemand),
    totalCost: r.totalCostCents,
    purchaseOrder: r.purchaseOrderId,
    decidedBy: r.decidedBy,
    decidedAt: r.decidedAt?.toISOString() ?? null,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

/** A suggestion's item as stored (the IngredientDemand it was made from). */
function storedDemand(r: Record<string, unknown>): IngredientDemandView {
  const n = (k: string) => Number(r[k] ?? 0);
  const unit = r.unit === 'kg' || r.unit === 'l' ? r.unit : 'un';
  return {
    inventoryItemId: String(r.inventoryItemId),
    itemName: String(r.itemName),
    unit,
    currentStock: n('currentStock'),
    availableQuantity: n('availableQuantity'),
    minStock: n('minStock'),
    predictedDemand: n('predictedDemand'),
    daysUntilStockout: n('daysUntilStockout'),
    suggestedOrder: n('suggestedOrder'),
    estimatedCost: n('estimatedCost'),
  };
}

/**
 * Demand prediction (spec 4.8 "Predictions"; docs/decisions.md, "Purchasing: demand prediction"): the daily
 * sales snapshot, the demand forecast per menu item, the ingredient demand and restock suggestions, and
 * suggested purchase orders approved into draft purchase orders (through the orders part).
 */
export function predictionsPart({ deps, needs }: PurchasingParts, orders: PurchaseOrdersPart) {
  const { clock } = deps;
  const yesterdayIn = (timezone: string) => addDays(localDate(clock.now(), timezone), -1);

  /** Writes the snapshot of one local day from the day's orders (replacing the day's rows); the number of menu items. */
  async function buildDay(t: TenantDb, day: string, timezone: string): Promise<number> {
    const range = { start: startOfLocalDay(day, timezone).toISOString(), end: startOfLocalDay(addDays(day, 1), timezone).toISOString() };
    return t.run(async (tx) => {
      const sold = await soldInDay(tx.db, tx.tenantId, range);
      await q.replaceDay(tx.db, tx.tenantId, day, sold, clock.now());
      return sold.length;
    });
  }

  /** The forecast of every live menu item with sales in the last 56 days, most predicted first. */
  async function forecasts(tx: TenantTx, timezone: string, horizon: number): Promise<DemandForecastView[]> {
    const last = yesterdayIn(timezone);
    const first = addDays(last, -(HISTORY_DAYS - 1));
    const rows = await q.snapshotsBetween(tx.db, tx.tenantId, first, last);
    const byItem = new Map<string, { day: string; quantityMilli: number }[]>();
    for (const r of rows) {
      const list = byItem.get(r.menuItemId) ?? [];
      list.push(r);
      byItem.set(r.menuItemId, list);
    }
    if (!byItem.size) return [];
    const names = new Map((await needs.menu.listItems(tx)).map((i) => [i._id, i.name]));
    const out: DemandForecastView[] = [];
    for (const [menuItemId, days] of byItem) {
      const name = names.get(menuItemId);
      if (name === undefined) continue; // deleted from the menu: no longer sold
      // One value per day from the first sale to yesterday; days without a row sold nothing.
      const series = new Array<number>(daysBetween(days[0].day, last) + 1).fill(0);
      for (const d of days) series[daysBetween(days[0].day, d.day)] = fromMilli(d.quantityMilli);
      out.push({ menuItemId, menuItemName: name, ...forecast(series, horizon) });
    }
    return out.sort((a, b) => b.predicted - a.predicted || a.menuItemName.localeCompare(b.menuItemName) || a.menuItemId.localeCompare(b.menuItemId));
  }

  /** Ingredient demand over the horizon and what to order, most urgent first. */
  async function ingredientDemand(tx: TenantTx, timezone: string, horizon: number): Promise<IngredientDemandView[]> {
    const dishes = (await forecasts(tx, timezone, horizon)).filter((f) => f.predicted > 0);
    if (!dishes.length) return [];
    const items = new Map((await needs.inventory.listItems(tx, {})).filter((i) => i.status !== 'blocked').map((i) => [i._id, i]));
    // Per item: the sum of predicted thousandths x recipe thousandths (millionths of the unit), rounded once.
    const need = new Map<string, bigint>();
    for (const dish of dishes) {
      for (const line of await needs.inventory.listIngredients(tx, dish.menuItemId)) {
        const item = items.get(line.inventoryItem._id);
        if (!item) continue;
        const pack = item.packSize === null ? null : milli(item.packSize);
        if (!convertible(line.unit, item.unit, pack)) continue;
        const perUnit = toStockMilli(milli(line.quantityPerUnit), line.unit, item.unit, pack);
        need.set(item._id, (need.get(item._id) ?? 0n) + BigInt(milli(dish.predicted)) * BigInt(perUnit));
      }
    }
    const out: IngredientDemandView[] = [];
    for (const [id, micro] of need) {
      const item = items.get(id)!;
      const demand = Number(divHalfUp(micro, 1000n));
      if (demand <= 0) continue;
      const available = milli(item.availableQuantity);
      const order = Math.max(0, demand + milli(item.minStock) - available);
      out.push({
        inventoryItemId: id,
        itemName: item.name,
        unit: item.unit,
        currentStock: item.currentStock,
        availableQuantity: item.availableQuantity,
        minStock: item.minStock,
        predictedDemand: fromMilli(demand),
        // available / (demand / horizon) days, rounded down to the tenth.
        daysUntilStockout: available <= 0 ? 0 : Math.floor((available * horizon * 10) / demand) / 10,
        suggestedOrder: fromMilli(order),
        estimatedCost: costOf(order, item.cost),
      });
    }
    const byUrgency = (a: IngredientDemandView, b: IngredientDemandView) =>
      a.daysUntilStockout - b.daysUntilStockout || a.itemName.localeCompare(b.itemName) || a.inventoryItemId.localeCompare(b.inventoryItemId);
    return out.sort(byUrgency);
  }

  return {
    /** The pure backtest of a daily series (forecast.model.ts), for scripts: MAPE of both methods over its last 28 days. */
    backtest,

    /**
     * `POST /snapshots/build`: the snapshot of a past local day (default yesterday) built now. 400 for today, a
     * future day or one more than 90 days back.
     */
    async buildSnapshot(t: TenantDb, timezone: string, day?: string): Promise<{ message: string }> {
      const yesterday = yesterdayIn(timezone);
      const target = day ?? yesterday;
      if (target > yesterday) throw new Invalid('day', 'must be a past day (today is not over)', { in: 'querystring' });
      if (daysBetween(target, yesterday) >= MAX_REBUILD_DAYS) {
        throw new Invalid('day', `must be within the last ${MAX_REBUILD_DAYS} days`, { in: 'querystring' });
      }
      const n = await buildDay(t, target, timezone);
      return { message: `Sales snapshot of ${target} built: ${n} menu item${n === 1 ? '' : 's'} sold` };
    },

    /** The `buildSnapshot` job: one tenant's day, in its own handle (idempotent: the day's rows are replaced). */
    async buildSnapshotJob(job: BuildSnapshotJob) {
      const tenant = await needs.tenants.findById(job.tenantId);
      if (!tenant?.isActive) return 'no active tenant';
      return buildDay(deps.tenantDb(tenant.id), job.day, tenant.timezone);
    },

    /**
     * The hourly `snapshotTick`: for every active tenant whose local clock passed 02:00 within the last hour, a
     * `buildSnapshot` job for its yesterday (one per tenant and day). The tenants table is shared: no bypass;
     * each build runs in its tenant's handle.
     */
    async snapshotTick(): Promise<number> {
      const now = clock.now();
      const hourAgo = new Date(now.getTime() - 3_600_000);
      let sent = 0;
      for (const tenant of await needs.tenants.list()) {
        if (!tenant.isActive) continue;
        const tz = tenant.timezone;
        const today = localDate(now, tz);
        // 02:00 local falls in (an hour ago, now]: also on a day whose 02:00 does not exist (DST starts at 2 a.m.).
        const passed = localTime(now, tz) >= SNAPSHOT_HOUR && (localDate(hourAgo, tz) !== today || localTime(hourAgo, tz) < SNAPSHOT_HOUR);
        if (!passed) continue;
        const day = addDays(today, -1);
        await deps.jobs.send(predictionJobs.buildSnapshot, { tenantId: tenant._id, day }, { singletonKey: `${tenant._id}:${day}` });
        sent++;
      }
      return sent;
    },

    /** `GET /demand`: the forecast per menu item. */
    demandForecast: (t: TenantDb, timezone: string, horizon: number): Promise<DemandForecastView[]> => t.run((tx) => forecasts(tx, timezone, horizon)),

    /** `GET /suggestions`: ingredient demand, ascending by days until stockout. */
    ingredientSuggestions: (t: TenantDb, timezone: string, horizon: number): Promise<IngredientDemandView[]> =>
      t.run((tx) => ingredientDemand(tx, timezone, horizon)),

    /** `POST /generate`: a pending suggested order of the ingredients to restock, or null when none needs it. */
    generateSuggestedOrder: (t: TenantDb, caller: PredictionsCaller, horizon: number): Promise<SuggestedPurchaseOrderView | null> =>
      t.run(async (tx) => {
        const restock = (await ingredientDemand(tx, caller.timezone, horizon)).filter((d) => d.suggestedOrder > 0);
        if (!restock.length) return null;
        const now = clock.now();
        const row = await q.insertSuggestion(tx.db, {
          tenantId: tx.tenantId,
          id: newId(),
          status: 'pending',
          horizonDays: horizon,
          items: restock.map((d) => ({ ...d })),
          totalCostCents: restock.reduce((sum, d) => sum + d.estimatedCost, 0),
          createdAt: now,
          updatedAt: now,
        });
        return toSuggestionView(row);
      }),

    /** `GET /suggested-orders`: the 20 newest. */
    listSuggestedOrders: (t: TenantDb): Promise<SuggestedPurchaseOrderView[]> =>
      t.run(async (tx) => (await q.latestSuggestions(tx.db, tx.tenantId, SUGGESTIONS_LISTED)).map(toSuggestionView)),

    /**
     * `PUT /suggested-orders/:id/:action`: only a pending suggestion is decided (409 `suggestion_decided`).
     * Approve makes a draft purchase order of its items still in the catalog (quantity the suggested order, at
     * the item's current cost) and links it (409 `nothing_to_order` when none is left); dismiss only records.
     */
    decideSuggestedOrder: (t: TenantDb, caller: PredictionsCaller, id: string, action: SuggestionAction): Promise<SuggestedPurchaseOrderView> =>
      t.run(async (tx) => {
        const row = await q.lockSuggestion(tx.db, tx.tenantId, id);
        if (!row) throw new NotFound('Suggested purchase order');
        if (row.status !== 'pending') throw new Conflict(`This suggested order is already ${row.status}`, 'suggestion_decided');
        const now = clock.now();
        const decided = { decidedBy: caller.userId, decidedAt: now, updatedAt: now };
        if (action === 'dismiss') return toSuggestionView(await q.updateSuggestion(tx.db, tx.tenantId, id, { status: 'dismissed', ...decided }));
        const live = new Map((await needs.inventory.listItems(tx, {})).map((i) => [i._id, i]));
        const lines = row.items
          .map(storedDemand)
          .filter((d) => live.has(d.inventoryItemId) && milli(d.suggestedOrder) > 0)
          .map((d) => ({ inventoryItemId: d.inventoryItemId, quantityMilli: milli(d.suggestedOrder), unitCostCents: live.get(d.inventoryItemId)!.cost }));
        if (!lines.length) throw new Conflict('None of the items of this suggested order is still in the inventory', 'nothing_to_order');
        const order = await orders.createDraftPurchaseOrder(tx, {
          items: lines,
          suggestionId: id,
          userId: caller.userId,
          timezone: caller.timezone,
          notes: `From the demand prediction for ${row.horizonDays} days`,
        });
        return toSuggestionView(await q.updateSuggestion(tx.db, tx.tenantId, id, { status: 'approved', purchaseOrderId: order._id, ...decided }));
      }),
  };
}
