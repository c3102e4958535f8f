import { Type } from '@sinclair/typebox';
import { ctxOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { pageWindow, sendPage } from '../../platform/pagination.js';
import { TenantParams, withErrors } from '../../platform/schemas.js';
import {
  BRANCH_STOCK_PAGE,
  BranchStockPageQuery,
  AdjustBranchStockBody,
  BranchStock,
  BranchStockDeleted,
  BranchStockItemParams,
  BranchStockParams,
  BranchStockQuery,
  BranchStockTransfer,
  TransferBranchStockBody,
  UpsertBranchStockBody,
} from './branch-stock.schemas.js';
import type { InventoryService } from './inventory.service.js';

const tags = ['branch-stock'];
const manageInventory = { permission: 'ManageInventory' } as const;
const manageSettings = { permission: 'ManageSettings' } as const;

/**
 * Stock per PDV (spec 4.8 "Branch stock"). Branch scope: staff act on their assigned PDVs, branch
 * managers on the PDVs of their branches (403 on another's), admins and superadmins on all; lists show
 * only the caller's PDVs.
 */
export function branchStockRoutes(app: RouteApp, { inventory }: { inventory: InventoryService }) {
  app.get('/t/:slug/branch-stock', {
    schema: {
      tags,
      summary: "Stock of the caller's PDVs, of one PDV (`pdv`) or one item (`item`), with item and PDV populated",
      params: TenantParams,
      querystring: BranchStockQuery,
      response: withErrors({ 200: Type.Array(BranchStock) }),
    },
    config: { auth: manageInventory },
    handler: async (req, reply) => {
      const { rows, total } = await inventory.listBranchStock(ctxOf(req), req.query);
      return sendPage(req, reply, pageWindow(req.query, BRANCH_STOCK_PAGE), total, rows);
    },
  });

  app.get('/t/:slug/branch-stock/alerts', {
    schema: {
      tags,
      summary: 'Rows with a minimum set and available quantity at or below it',
      params: TenantParams,
      querystring: BranchStockPageQuery,
      response: withErrors({ 200: Type.Array(BranchStock) }),
    },
    config: { auth: manageSettings },
    handler: async (req, reply) => {
      const { rows, total } = await inventory.branchStockAlerts(ctxOf(req), req.query);
      return sendPage(req, reply, pageWindow(req.query, BRANCH_STOCK_PAGE), total, rows);
    },
  });

  app.put('/t/:slug/branch-stock/:pdvId', {
    schema: {
      tags,
      summary: 'Set the physical stock (and minimum) of an item at a PDV, creating its row when missing',
      params: BranchStockParams,
      body: UpsertBranchStockBody,
      response: withErrors({ 200: BranchStock }),
    },
    config: { auth: manageInventory },
    handler: (req) => inventory.upsertBranchStock(ctxOf(req), req.params.pdvId, req.body),
  });

  app.post('/t/:slug/branch-stock/:pdvId/adjust', {
    schema: {
      tags,
      summary: 'Add a signed delta to the physical stock of an item at a PDV (400 when it would go negative)',
      params: BranchStockParams,
      body: AdjustBranchStockBody,
      response: withErrors({ 200: BranchStock }),
    },
    config: { auth: manageInventory },
    handler: (req) => inventory.adjustBranchStock(ctxOf(req), req.params.pdvId, req.body),
  });

  app.post('/t/:slug/branch-stock/transfer', {
    schema: {
      tags,
      summary: 'Move stock of an item between two PDVs, atomically (400 when the source holds too little)',
      params: TenantParams,
      body: TransferBranchStockBody,
      response: withErrors({ 200: BranchStockTransfer }),
    },
    config: { auth: manageSettings },
    handler: (req) => inventory.transferBranchStock(ctxOf(req), req.body),
  });

  app.delete('/t/:slug/branch-stock/:pdvId/items/:itemId', {
    schema: {
      tags,
      summary: 'Remove the row of an item at a PDV (409 while it holds stock)',
      params: BranchStockItemParams,
      response: withErrors({ 200: BranchStockDeleted }, [400, 401, 403, 404, 409]),
    },
    config: { auth: manageInventory },
    handler: (req) => inventory.removeBranchStock(ctxOf(req), req.params.pdvId, req.params.itemId),
  });
}
