import { randomUUID } from 'node:crypto';
import { newId } from '../../db/ids.js';
import type { LabelTokenRow } from '../../db/schema/inventory.js';
import type { TenantDb } from '../../db/scopes.js';
import { Conflict, Invalid, NotFound } from '../../platform/domain-errors.js';
import { fromMilli, hasGramPrecision, milli } from '../../platform/quantity.js';
import type { InventoryParts } from './inventory.service.js';
import { renderLabelPdf } from './labels.pdf.js';
import * as q from './labels.queries.js';
import type { CreateLabelInput, LabelTokenView } from './labels.schemas.js';
import { toMovementView } from './stock.js';

/** A label token's canonical form: UUID (any version), matched without regard to case. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What the labels part needs of the caller's tenant: its slug (for the URLs) and time zone (for the label's dates). */
export interface LabelTenant {
  slug: string;
  timezone: string;
}

/**
 * Labels and their scan (spec "LabelToken", section 3; 4.8): an admin makes a pending label for a
 * quantity of an item, prints it (a PDF with the QR code of the scan URL), and the first scan of that
 * URL takes the quantity out of stock, once (docs/decisions.md, "Inventory: labels and scan").
 */
export function labelsPart({ deps, needs, core }: InventoryParts) {
  const { clock, config } = deps;
  const base = config.publicUrl.replace(/\/+$/, '');
  const scanUrl = (slug: string, token: string) => `${base}/t/${slug}/inventory/scan/${token}`;
  const labelUrl = (slug: string, id: string) => `${base}/t/${slug}/inventory/labels/${id}/label.pdf`;

  const toLabelView = (row: LabelTokenRow, tenant: LabelTenant): LabelTokenView => ({
    _id: row.id,
    token: row.token,
    item: row.itemId,
    quantity: fromMilli(row.quantityMilli),
    reason: row.reason,
    notes: row.notes,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
    pdv: row.pdvId,
    labelUrl: labelUrl(tenant.slug, row.id),
    scanUrl: scanUrl(tenant.slug, row.token),
  });

  return {
    /**
     * A pending label for `quantity` of the item, from the catalog or, with `pdvId`, from that PDV's
     * branch stock. NotFound for an item that is not in the tenant's catalog (or deleted), a PDV that is
     * not the tenant's, or an item without a stock row at that PDV. The stock is not checked here: the
     * scan checks it.
     */
    async createLabel(t: TenantDb, tenant: LabelTenant, userId: string, input: CreateLabelInput): Promise<LabelTokenView> {
      if (!hasGramPrecision(input.quantity)) throw new Invalid('quantity', 'must have at most 3 decimals');
      return t.run(async (tx) => {
        const item = await q.findLiveItem(tx.db, tx.tenantId, input.itemId);
        if (!item) throw new NotFound('Inventory item');
        const pdvId = input.pdvId ?? null;
        if (pdvId !== null) {
          const pdv = await needs.branches.findPdv(tx, pdvId);
          if (!pdv || pdv._id !== pdvId) throw new NotFound('PDV');
          if (!(await q.hasBranchStock(tx.db, tx.tenantId, item.id, pdvId))) throw new NotFound('Branch stock', `${item.name} has no stock at this PDV`);
        }
        const notes = input.notes?.trim() || null;
        const row = await q.insertLabel(tx.db, {
          tenantId: tx.tenantId,
          id: newId(),
          token: randomUUID(),
          itemId: item.id,
          pdvId,
          quantityMilli: milli(input.quantity),
          reason: input.reason,
          notes,
          status: 'pending',
          createdBy: userId,
          createdAt: clock.now(),
        });
        return toLabelView(row, tenant);
      });
    },

    /**
     * The printable label (a PDF) of a pending label. NotFound for an unknown label; Conflict
     * `label_used` once it was scanned (a reprint would be a label that can no longer be scanned).
     */
    async labelPdf(t: TenantDb, tenant: LabelTenant, id: string): Promise<{ pdf: Buffer; filename: string }> {
      const face = await t.run(async (tx) => {
        const found = await q.findLabelWithItem(tx.db, tx.tenantId, id);
        if (!found) throw new NotFound('Label');
        if (found.label.status !== 'pending') throw new Conflict('This label was scanned already', 'label_used');
        const pdvName = found.label.pdvId ? ((await needs.branches.findPdv(tx, found.label.pdvId))?.name ?? null) : null;
        return {
          itemName: found.item.name,
          sku: found.item.sku,
          quantityMilli: found.label.quantityMilli,
          unit: found.item.unit,
          reason: found.label.reason,
          createdAt: found.label.createdAt,
          timeZone: tenant.timezone,
          expirationDate: found.item.expirationDate,
          pdvName,
          scanUrl: scanUrl(tenant.slug, found.label.token),
        };
      });
      return { pdf: await renderLabelPdf(face), filename: `label-${id}.pdf` };
    },

    /**
     * Consumes a pending label (public: whoever holds the printed label): in one transaction the label
     * becomes `used` and its exit movement is made through the core (reason = the label's reason, no
     * user). Of any number of concurrent scans of one token exactly one gets here; the others, and an
     * unknown, malformed, used or other tenant's token, get NotFound('Label'). When the stock cannot
     * cover the quantity (`InsufficientStock`, 409) or the item or its PDV row is gone (NotFound), the
     * transaction rolls back and the label stays pending.
     */
    async scanLabel(t: TenantDb, token: string) {
      if (!UUID.test(token)) throw new NotFound('Label');
      return t.run(async (tx) => {
        const label = await q.claimPendingLabel(tx.db, tx.tenantId, token.toLowerCase(), clock.now());
        if (!label) throw new NotFound('Label');
        const { movement } = await core.change(tx, {
          itemId: label.itemId,
          pdvId: label.pdvId,
          type: 'exit',
          reason: label.reason,
          delta: -label.quantityMilli,
          labelId: label.id,
          notes: label.notes,
          userId: null,
        });
        await q.setLabelMovement(tx.db, tx.tenantId, label.id, movement);
        return toMovementView(movement);
      });
    },
  };
}
