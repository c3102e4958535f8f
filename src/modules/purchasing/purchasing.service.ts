import type { TenantTx } from '../../db/scopes.js';
import type { Deps } from '../../platform/deps.js';
import type { BranchesService } from '../branches/index.js';
import type { InventoryService } from '../inventory/index.js';
import type { MenuService } from '../menu/index.js';
import type { TenantsService } from '../tenants/index.js';
import * as iq from './invoices.queries.js';
import { invoicesPart } from './invoices.service.js';
import { invoiceTotalsPart } from './invoices.totals.js';
import * as oq from './orders.queries.js';
import { ordersPart } from './orders.service.js';
import { predictionsPart } from './predictions.service.js';

export interface PurchasingNeeds {
  inventory: InventoryService;
  menu: MenuService;
  branches: BranchesService;
  tenants: TenantsService;
}

/**
 * Goods that came in: a purchase order's receipt (one per receive call) or an imported supplier invoice,
 * with the stock movements it wrote. Told to the listeners of `onGoodsReceived` inside its transaction
 * (the accounting module posts inventory against suppliers).
 */
export interface GoodsReceipt {
  kind: 'purchase_order' | 'invoice';
  /** The purchase order, or the imported invoice. */
  id: string;
  movementIds: string[];
}
export type GoodsReceiptListener = (tx: TenantTx, receipt: GoodsReceipt) => Promise<unknown> | unknown;

/** What every part of the purchasing service is built from. */
export interface PurchasingParts {
  deps: Deps;
  needs: PurchasingNeeds;
  /** Tells the `onGoodsReceived` listeners, in the caller's transaction. */
  received(tx: TenantTx, receipt: GoodsReceipt): Promise<void>;
}

/**
 * Purchasing (spec 4.8 suppliers, purchase orders, predictions, import-nfs): one service made of parts,
 * each in its own file. Goods received change stock only through `inventory.receiveStock`.
 */
export function purchasingService(deps: Deps, needs: PurchasingNeeds) {
  const listeners: GoodsReceiptListener[] = [];
  const received = async (tx: TenantTx, receipt: GoodsReceipt) => {
    for (const listener of listeners) await listener(tx, receipt);
  };
  const parts: PurchasingParts = { deps, needs, received };
  const orders = ordersPart(parts);
  return {
    ...orders,
    ...invoicesPart(parts, orders),
    ...predictionsPart(parts, orders),
    ...invoiceTotalsPart(),

    /** `listener` runs inside the transaction of each purchase order receipt and each invoice import that moved stock. */
    onGoodsReceived(listener: GoodsReceiptListener) {
      listeners.push(listener);
    },

    /** For the accounting module: what a receipt is called (the order number or the NF-e) and its supplier, or null. */
    async receiptRef(tx: TenantTx, kind: GoodsReceipt['kind'], id: string): Promise<{ reference: string; supplierName: string | null } | null> {
      if (kind === 'purchase_order') {
        const found = await oq.findOrder(tx.db, tx.tenantId, id);
        return found && { reference: found.order.orderNumber, supplierName: found.supplier?.name ?? null };
      }
      const invoice = await iq.findInvoice(tx.db, tx.tenantId, id);
      return invoice && { reference: `NF-e ${invoice.nfeNumber}`, supplierName: invoice.emitterName };
    },
  };
}

export type PurchasingService = ReturnType<typeof purchasingService>;
export type PurchaseOrdersPart = ReturnType<typeof ordersPart>;
