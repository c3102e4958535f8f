import { Type } from '@sinclair/typebox';
import { ctxOf, tenantOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { NotModified, sendCached } from '../../platform/http-cache.js';
import { pageWindow, sendPage, slicePage } from '../../platform/pagination.js';
import { TenantIdParams, TenantParams, withErrors } from '../../platform/schemas.js';
import {
  MENU_ITEMS_PAGE,
  AdminItemsQuery,
  CreateCategoryBody,
  CreateItemBody,
  CreateModifierGroupBody,
  Deleted,
  MenuCategory,
  AdminMenuItem,
  MenuItem,
  MenuItemDetail,
  ModifierGroup,
  PublicItemsQuery,
  UpdateCategoryBody,
  UpdateItemBody,
  UpdateModifierGroupBody,
} from './menu.schemas.js';
import { PUBLIC_MENU_CACHE_CONTROL, type MenuService } from './menu.service.js';

const publicRead = { public: true } as const;
/** Spec "JWT" menu writes: the roles that run the floor; accountants only read. */
const menuEditors = { roles: ['admin', 'branch_manager', 'staff'] } as const;
const admin = { roles: ['admin'] } as const;

const publicHeaders = {
  'cache-control': { type: 'string', description: PUBLIC_MENU_CACHE_CONTROL },
  etag: { type: 'string', description: 'strong validator; send it back in If-None-Match' },
};
const cachedOk = <T extends Parameters<typeof Type.Array>[0] | ReturnType<typeof Type.Object>>(schema: T, description: string) =>
  ({ ...schema, description, headers: publicHeaders }) as unknown as T;
const IfNoneMatch = Type.Object({ 'if-none-match': Type.Optional(Type.String({ description: 'ETag of a copy the client holds' })) });

export function menuRoutes(app: RouteApp, { menu }: { menu: MenuService }) {
  // ---- public reads: Cache-Control + ETag, 304 on If-None-Match

  app.get('/t/:slug/menu/categories', {
    schema: {
      tags: ['menu'],
      summary: 'Active categories, in menu order (public)',
      security: [],
      params: TenantParams,
      headers: IfNoneMatch,
      response: withErrors({ 200: cachedOk(Type.Array(MenuCategory), 'active categories'), 304: NotModified }, [400, 403, 404]),
    },
    config: { auth: publicRead },
    handler: async (req, reply) => sendCached(req, reply, await menu.publicCategories(tenantOf(req).db), PUBLIC_MENU_CACHE_CONTROL),
  });

  app.get('/t/:slug/menu/items', {
    schema: {
      tags: ['menu'],
      summary: 'Items customers can order: active, available, in an active category (public)',
      security: [],
      params: TenantParams,
      querystring: PublicItemsQuery,
      headers: IfNoneMatch,
      response: withErrors({ 200: cachedOk(Type.Array(MenuItem), 'active and available items'), 304: NotModified }, [400, 403, 404]),
    },
    config: { auth: publicRead },
    handler: async (req, reply) =>
      sendCached(req, reply, await menu.publicItems(tenantOf(req).db, req.query.category), PUBLIC_MENU_CACHE_CONTROL),
  });

  app.get('/t/:slug/menu/items/:id', {
    schema: {
      tags: ['menu'],
      summary: 'Item detail with allergens, modifier groups expanded (variations) and BOM (public)',
      security: [],
      params: TenantIdParams,
      headers: IfNoneMatch,
      response: withErrors({ 200: cachedOk(MenuItemDetail, 'the item'), 304: NotModified }, [400, 403, 404]),
    },
    config: { auth: publicRead },
    handler: async (req, reply) =>
      sendCached(req, reply, await menu.publicItem(tenantOf(req).db, req.params.id), PUBLIC_MENU_CACHE_CONTROL),
  });

  app.get('/t/:slug/menu/modifier-groups', {
    schema: {
      tags: ['menu'],
      summary: 'Modifier groups (public)',
      security: [],
      params: TenantParams,
      headers: IfNoneMatch,
      response: withErrors({ 200: cachedOk(Type.Array(ModifierGroup), 'modifier groups'), 304: NotModified }, [400, 403, 404]),
    },
    config: { auth: publicRead },
    handler: async (req, reply) => sendCached(req, reply, await menu.publicGroups(tenantOf(req).db), PUBLIC_MENU_CACHE_CONTROL),
  });

  // ---- panel reads: everything, hidden records included

  app.get('/t/:slug/admin/menu/categories', {
    schema: {
      tags: ['menu'],
      summary: 'All categories, inactive ones included (panel)',
      params: TenantParams,
      response: withErrors({ 200: Type.Array(MenuCategory) }),
    },
    // Any member of the tenant: the floor and the kitchen read the whole menu too.
    config: { auth: {} },
    handler: (req) => menu.listCategories(ctxOf(req).db),
  });

  app.get('/t/:slug/admin/menu/items', {
    schema: {
      tags: ['menu'],
      summary: 'All items, unavailable and inactive ones included (panel)',
      params: TenantParams,
      querystring: AdminItemsQuery,
      response: withErrors({ 200: Type.Array(AdminMenuItem) }),
    },
    // Any member of the tenant.
    config: { auth: {} },
    handler: async (req, reply) => {
      const window = pageWindow(req.query, MENU_ITEMS_PAGE);
      const { rows, total } = slicePage(await menu.listItems(ctxOf(req).db, req.query), window);
      return sendPage(req, reply, window, total, rows);
    },
  });

  // ---- categories

  app.post('/t/:slug/menu/categories', {
    schema: {
      tags: ['menu'],
      summary: 'Create a category',
      params: TenantParams,
      body: CreateCategoryBody,
      response: withErrors({ 201: MenuCategory }),
    },
    config: { auth: menuEditors },
    handler: async (req, reply) => reply.code(201).send(await menu.createCategory(ctxOf(req).db, req.body)),
  });

  app.put('/t/:slug/menu/categories/:id', {
    schema: {
      tags: ['menu'],
      summary: 'Update a category',
      params: TenantIdParams,
      body: UpdateCategoryBody,
      response: withErrors({ 200: MenuCategory }),
    },
    config: { auth: menuEditors },
    handler: (req) => menu.updateCategory(ctxOf(req).db, req.params.id, req.body),
  });

  app.delete('/t/:slug/menu/categories/:id', {
    schema: {
      tags: ['menu'],
      summary: 'Delete a category (409 while it still has items)',
      params: TenantIdParams,
      response: withErrors({ 200: Deleted }, [400, 401, 403, 404, 409]),
    },
    config: { auth: menuEditors },
    handler: (req) => menu.deleteCategory(ctxOf(req).db, req.params.id),
  });

  // ---- items

  app.post('/t/:slug/menu/items', {
    schema: {
      tags: ['menu'],
      summary: 'Create a menu item',
      params: TenantParams,
      body: CreateItemBody,
      response: withErrors({ 201: AdminMenuItem }),
    },
    config: { auth: admin },
    handler: async (req, reply) => reply.code(201).send(await menu.createItem(ctxOf(req).db, req.body)),
  });

  app.put('/t/:slug/menu/items/:id', {
    schema: {
      tags: ['menu'],
      summary: 'Update a menu item (modifierGroupIds replaces the list)',
      params: TenantIdParams,
      body: UpdateItemBody,
      response: withErrors({ 200: AdminMenuItem }),
    },
    config: { auth: menuEditors },
    handler: (req) => menu.updateItem(ctxOf(req).db, req.params.id, req.body),
  });

  app.delete('/t/:slug/menu/items/:id', {
    schema: {
      tags: ['menu'],
      summary: 'Delete a menu item (soft: orders keep their reference)',
      params: TenantIdParams,
      response: withErrors({ 200: Deleted }),
    },
    config: { auth: menuEditors },
    handler: (req) => menu.deleteItem(ctxOf(req).db, req.params.id),
  });

  // ---- modifier groups

  app.post('/t/:slug/menu/modifier-groups', {
    schema: {
      tags: ['menu'],
      summary: 'Create a modifier group',
      params: TenantParams,
      body: CreateModifierGroupBody,
      response: withErrors({ 201: ModifierGroup }),
    },
    config: { auth: admin },
    handler: async (req, reply) => reply.code(201).send(await menu.createGroup(ctxOf(req).db, req.body)),
  });

  app.put('/t/:slug/menu/modifier-groups/:id', {
    schema: {
      tags: ['menu'],
      summary: 'Update a modifier group (options replaces the list)',
      params: TenantIdParams,
      body: UpdateModifierGroupBody,
      response: withErrors({ 200: ModifierGroup }),
    },
    config: { auth: admin },
    handler: (req) => menu.updateGroup(ctxOf(req).db, req.params.id, req.body),
  });

  app.delete('/t/:slug/menu/modifier-groups/:id', {
    schema: {
      tags: ['menu'],
      summary: 'Delete a modifier group (soft, and detached from every item)',
      params: TenantIdParams,
      response: withErrors({ 200: Deleted }),
    },
    config: { auth: admin },
    handler: (req) => menu.deleteGroup(ctxOf(req).db, req.params.id),
  });
}
