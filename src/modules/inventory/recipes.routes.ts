import { Type } from '@sinclair/typebox';
import { ctxOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { TenantIdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import type { InventoryService } from './inventory.service.js';
import { CreateIngredientBody, IngredientDeleted, IngredientsQuery, ProductIngredient } from './recipes.schemas.js';

/** Spec 4.8: recipes are the admin's (superadmin passes every rule). */
const admin = { roles: ['admin'] } as const;

/** The recipe routes (spec 4.8 `/inventory/ingredients`). */
export function recipesRoutes(app: RouteApp, { inventory }: { inventory: InventoryService }) {
  app.get('/t/:slug/inventory/ingredients', {
    schema: {
      tags: ['inventory'],
      summary: "A menu item's recipe: the inventory items one unit of it uses",
      params: TenantParams,
      querystring: IngredientsQuery,
      response: withErrors({ 200: Type.Array(ProductIngredient) }),
    },
    config: { auth: admin },
    handler: (req) => inventory.listIngredients(ctxOf(req).db, req.query.menuItemId),
  });

  app.post('/t/:slug/inventory/ingredients', {
    schema: {
      tags: ['inventory'],
      summary: "Add an inventory item to a menu item's recipe (the pair is unique: 409)",
      params: TenantParams,
      body: CreateIngredientBody,
      response: withErrors({ 201: ProductIngredient }, [400, 401, 403, 404, 409]),
    },
    config: { auth: admin },
    handler: async (req, reply) => reply.code(201).send(await inventory.createIngredient(ctxOf(req).db, req.body)),
  });

  app.delete('/t/:slug/inventory/ingredients/:id', {
    schema: {
      tags: ['inventory'],
      summary: 'Remove a line of a recipe',
      params: TenantIdParams,
      response: withErrors({ 200: IngredientDeleted }),
    },
    config: { auth: admin },
    handler: (req) => inventory.deleteIngredient(ctxOf(req).db, req.params.id),
  });
}
