import { Type } from '@sinclair/typebox';
import { ctxOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { Nullable, TenantParams, withErrors } from '../../platform/schemas.js';
import {
  BuildResult,
  BuildSnapshotQuery,
  DemandForecast,
  HorizonQuery,
  IngredientDemand,
  SuggestedPurchaseOrder,
  SuggestionActionParams,
} from './predictions.schemas.js';
import type { PurchasingService } from './purchasing.service.js';

/** Spec 4.8 "Predictions": admin (superadmin passes every rule), plan feature inventoryPrediction. */
const rule = { roles: ['admin'], feature: 'inventoryPrediction' } as const;
const base = '/t/:slug/inventory/predictions';

/** The demand prediction routes (spec 4.8 `/inventory/predictions`). */
export function predictionsRoutes(app: RouteApp, { purchasing }: { purchasing: PurchasingService }) {
  const caller = (ctx: ReturnType<typeof ctxOf>) => ({ userId: ctx.user.id, timezone: ctx.tenant.timezone });

  app.get(`${base}/demand`, {
    schema: {
      tags: ['purchasing'],
      summary: 'Demand forecast per menu item over the horizon (weighted moving average or weekday method, whichever backtests better)',
      params: TenantParams,
      querystring: HorizonQuery,
      response: withErrors({ 200: Type.Array(DemandForecast) }),
    },
    config: { auth: rule },
    handler: (req) => {
      const ctx = ctxOf(req);
      return purchasing.demandForecast(ctx.db, ctx.tenant.timezone, req.query.horizon ?? 7);
    },
  });

  app.get(`${base}/suggestions`, {
    schema: {
      tags: ['purchasing'],
      summary: 'Ingredient demand from the recipes, days until stockout and what to order, most urgent first',
      params: TenantParams,
      querystring: HorizonQuery,
      response: withErrors({ 200: Type.Array(IngredientDemand) }),
    },
    config: { auth: rule },
    handler: (req) => {
      const ctx = ctxOf(req);
      return purchasing.ingredientSuggestions(ctx.db, ctx.tenant.timezone, req.query.horizon ?? 7);
    },
  });

  app.get(`${base}/suggested-orders`, {
    schema: {
      tags: ['purchasing'],
      summary: 'The 20 newest suggested purchase orders',
      params: TenantParams,
      response: withErrors({ 200: Type.Array(SuggestedPurchaseOrder) }),
    },
    config: { auth: rule },
    handler: (req) => purchasing.listSuggestedOrders(ctxOf(req).db),
  });

  app.post(`${base}/generate`, {
    schema: {
      tags: ['purchasing'],
      summary: 'A pending suggested purchase order of the ingredients to restock, or null when none needs it',
      params: TenantParams,
      querystring: HorizonQuery,
      response: withErrors({ 200: Nullable(SuggestedPurchaseOrder) }),
    },
    config: { auth: rule },
    handler: (req) => {
      const ctx = ctxOf(req);
      return purchasing.generateSuggestedOrder(ctx.db, caller(ctx), req.query.horizon ?? 7);
    },
  });

  app.put(`${base}/suggested-orders/:id/:action`, {
    schema: {
      tags: ['purchasing'],
      summary: 'Approve (a draft purchase order is made from it) or dismiss a pending suggested order',
      params: SuggestionActionParams,
      response: withErrors({ 200: SuggestedPurchaseOrder }, [400, 401, 403, 404, 409]),
    },
    config: { auth: rule },
    handler: (req) => {
      const ctx = ctxOf(req);
      return purchasing.decideSuggestedOrder(ctx.db, caller(ctx), req.params.id, req.params.action);
    },
  });

  app.post(`${base}/snapshots/build`, {
    schema: {
      tags: ['purchasing'],
      summary: "Build the daily sales snapshot of yesterday (or of a past `day`) now; normally the 02:00 job's work",
      params: TenantParams,
      querystring: BuildSnapshotQuery,
      response: withErrors({ 200: BuildResult }),
    },
    config: { auth: rule },
    handler: (req) => {
      const ctx = ctxOf(req);
      return purchasing.buildSnapshot(ctx.db, ctx.tenant.timezone, req.query.day);
    },
  });
}
