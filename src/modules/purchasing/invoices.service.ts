import { isId, newId } from '../../db/ids.js';
import type { StockUnit } from '../../db/schema/inventory.js';
import type { TenantDb, TenantTx } from '../../db/scopes.js';
import { stripDocument } from '../../platform/br-documents.js';
import { Conflict, Invalid, isUniqueViolation } from '../../platform/domain-errors.js';
import { fromMilli, hasGramPrecision, milli } from '../../platform/quantity.js';
import { convertible, toStockMilli, validEan } from '../inventory/index.js';
import * as q from './invoices.queries.js';
import type { ImportLineView, ImportProblemView, ImportResultView, MatchRule } from './invoices.schemas.js';
import { centsOf, divRound, parseNfe, type Decimal, type Nfe, type NfeLine } from './nfe.parser.js';
import { measureOf, type Measure } from './nfe.units.js';
import type { PurchaseOrdersPart, PurchasingParts } from './purchasing.service.js';

/** The largest NF-e XML accepted, in bytes (2 MB: the 41-item sample is 100 kB). */
export const MAX_NFE_BYTES = 2 * 1024 * 1024;

/** A person's decision on a supplier code, sent with an import: this item (remembered), or leave the line out. */
export interface ConfirmedMapping {
  supplierCode: string;
  itemId?: string;
  /** Units of the item in one invoice unit (12 for a box of 12); default from the units. */
  factor?: number;
  skip?: boolean;
}

export interface ImportInput {
  xml: string;
  dryRun: boolean;
  /** The `mappings` form field as parsed JSON (checked here), or undefined. */
  mappings?: unknown;
}

/** An inventory item as the import sees it (existing, or proposed by an earlier line). */
interface Target {
  id: string | null;
  name: string;
  sku: string;
  unit: StockUnit;
  packSizeMilli: number | null;
  costCents: number | null;
  ean: string | null;
  /** Index of the proposal when the item is to be created. */
  proposal: number | null;
}

interface PlannedLine {
  nfe: NfeLine;
  view: ImportLineView;
  target: Target | null;
  stockMilli: number;
  unitCostCents: number;
  /** Remember supplier code -> item with this factor once written. */
  remember: number | null;
}

/** Inventory items whose cost an import changed (`setCost`: the last line's price), told inside its transaction. */
export interface ItemCostsChanged {
  itemIds: string[];
  userId: string;
}
export type ItemCostsChangedListener = (tx: TenantTx, event: ItemCostsChanged) => Promise<unknown> | unknown;

/** Lower case, no accents, one space between words. */
export const normalizeName = (name: string) =>
  name.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/\s+/g, ' ').trim();

const toNumber = (d: Decimal) => Number(d.digits) / 10 ** d.scale;

/** Stock thousandths for `quantity` invoice units of `factorMilli` thousandths each, half up. */
const stockMilliOf = (quantity: Decimal, factorMilli: number) => divRound(quantity.digits * BigInt(factorMilli), 10n ** BigInt(quantity.scale));
/** Cents per stock unit from the invoice's unit price and the factor, half up. */
const unitCostOf = (price: Decimal, factorMilli: number) => divRound(price.digits * 100n * 1000n, 10n ** BigInt(price.scale) * BigInt(factorMilli));

/** Thousandths of `unit` in one invoice unit of `measure`; null when the kinds differ. */
function factorInto(measure: Measure | null, unit: StockUnit, packSizeMilli: number | null): number | null {
  if (!measure) return unit === 'un' && packSizeMilli ? packSizeMilli : null;
  if (measure.base === 'un') return unit === 'un' ? measure.perMilli : null;
  return convertible(measure.base, unit, null) ? toStockMilli(measure.perMilli, measure.base, unit, null) : null;
}

const STOCK_OF: Record<Measure['base'], StockUnit> = { kg: 'kg', g: 'kg', l: 'l', ml: 'l', un: 'un' };

/** The `mappings` field: an array of `{ supplierCode, itemId | skip, factor? }`, every problem named. */
function readMappings(raw: unknown, nfe: Nfe): ConfirmedMapping[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) throw new Invalid('mappings', 'must be a JSON array of { supplierCode, itemId | skip, factor? }', { in: 'body' });
  const codes = new Set(nfe.lines.map((l) => l.code));
  const problems: { field: string; message: string }[] = [];
  const seen = new Set<string>();
  const out: ConfirmedMapping[] = [];
  raw.forEach((m: unknown, i) => {
    const at = `mappings.${i}`;
    if (typeof m !== 'object' || m === null || Array.isArray(m)) return problems.push({ field: at, message: 'must be an object' });
    const { supplierCode, itemId, factor, skip, ...rest } = m as Record<string, unknown>;
    for (const k of Object.keys(rest)) problems.push({ field: `${at}.${k}`, message: 'is not a known field' });
    if (typeof supplierCode !== 'string' || !codes.has(supplierCode)) {
      problems.push({ field: `${at}.supplierCode`, message: 'is not a product code (cProd) of this invoice' });
    } else if (seen.has(supplierCode)) {
      problems.push({ field: `${at}.supplierCode`, message: 'is given twice' });
    } else seen.add(supplierCode);
    if (skip !== undefined && typeof skip !== 'boolean') problems.push({ field: `${at}.skip`, message: 'must be a boolean' });
    if (skip === true && itemId !== undefined) problems.push({ field: `${at}.itemId`, message: 'cannot go with skip' });
    if (skip !== true && (typeof itemId !== 'string' || !isId(itemId))) problems.push({ field: `${at}.itemId`, message: 'must be an inventory item id' });
    if (factor !== undefined && (typeof factor !== 'number' || factor <= 0 || factor > 1_000_000 || !hasGramPrecision(factor))) {
      problems.push({ field: `${at}.factor`, message: 'must be a number above 0 with at most 3 decimals' });
    }
    out.push({ supplierCode: supplierCode as string, itemId: itemId as string | undefined, factor: factor as number | undefined, skip: skip === true });
  });
  if (problems.length) throw new Invalid(problems, { in: 'body' });
  return out;
}

/**
 * Supplier invoice import (spec 4.8 `POST /inventory/import-nfs`): an NF-e's lines matched to inventory
 * items, missing ones created, each line an entry movement (reason purchase) at the invoice's price
 * through `inventory.receiveStock`, all in one transaction, the key recorded so a second import is 409.
 */
export function invoicesPart({ deps, needs, received }: PurchasingParts, _orders: PurchaseOrdersPart) {
  const costListeners: ItemCostsChangedListener[] = [];
  /** The tenant's CNPJ and its branches', read before the import's transaction. */
  async function recipientsOf(t: TenantDb) {
    const tenant = await needs.tenants.findById(t.tenantId);
    const branches: string[] = [];
    for (let page = 1; ; page++) {
      const res = await needs.branches.list(t, { all: true }, { page, limit: 100 });
      for (const b of res.data) if (b.cnpj) branches.push(stripDocument(b.cnpj));
      if (page >= res.totalPages) break;
    }
    return { tenant: tenant?.cnpj ? stripDocument(tenant.cnpj) : null, branches };
  }

  function checkRecipient(nfe: Nfe, own: { tenant: string | null; branches: string[] }) {
    const dest = nfe.recipientCnpj;
    if (dest && (dest === own.tenant || own.branches.includes(dest))) return;
    const ours = own.tenant ? `the tenant's CNPJ ${own.tenant}` : 'the tenant, which has no CNPJ set';
    const branches = own.branches.length ? ` nor its branches' (${own.branches.join(', ')})` : ' (no branch has a CNPJ)';
    throw new Invalid([{ field: 'file', message: `recipient ${dest ?? '(none)'} is not ${ours}${branches}` }], {
      code: 'wrong_recipient',
      in: 'body',
      summary: `The NF-e's recipient (dest/CNPJ ${dest ?? 'absent'}) is not ${ours}${branches}`,
    });
  }

  /** Every line's action, without writing anything. */
  async function plan(tx: TenantTx, nfe: Nfe, confirmed: ConfirmedMapping[]) {
    const items = await needs.inventory.listItems(tx, {});
    const targets: Target[] = items.map((i) => ({
      id: i._id,
      name: i.name,
      sku: i.sku,
      unit: i.unit,
      packSizeMilli: i.packSize === null ? null : milli(i.packSize),
      costCents: i.cost,
      ean: i.ean,
      proposal: null,
    }));
    const byId = new Map(targets.map((x) => [x.id!, x]));
    const byEan = new Map(targets.filter((x) => x.ean).map((x) => [x.ean!, x]));
    const byName = new Map<string, Target[]>();
    const addName = (x: Target) => byName.set(normalizeName(x.name), [...(byName.get(normalizeName(x.name)) ?? []), x]);
    targets.forEach(addName);
    const skus = new Set(targets.map((x) => x.sku.toLowerCase()));
    const stored = new Map((await q.mappingsOf(tx.db, tx.tenantId, nfe.emitter.document)).map((m) => [m.supplierCode, m]));
    const confirmedBy = new Map(confirmed.map((m) => [m.supplierCode, m]));
    const problems: { field: string; message: string }[] = [];
    confirmed.forEach((m, i) => {
      if (m.itemId && !byId.has(m.itemId)) problems.push({ field: `mappings.${i}.itemId`, message: 'is not an item of this inventory' });
    });
    if (problems.length) throw new Invalid(problems, { in: 'body' });

    const proposals: Target[] = [];
    const createdFor = new Map<string, Target>();
    const errors: ImportProblemView[] = [];
    const lines: PlannedLine[] = [];

    for (const l of nfe.lines) {
      const base: Omit<ImportLineView, 'action' | 'matchedBy' | 'item' | 'stockQuantity' | 'unitCost' | 'previousCost' | 'reason'> = {
        line: l.line,
        supplierCode: l.code,
        description: l.name,
        ean: l.ean,
        quantity: toNumber(l.quantity),
        unit: l.unit,
        unitPrice: centsOf(l.unitPrice),
      };
      const ean = l.ean && validEan(l.ean) ? l.ean : null;
      if (l.ean && !ean) errors.push({ line: l.line, code: 'ean_ignored', message: `EAN ${l.ean} has a wrong check digit: not used` });
      const mine = confirmedBy.get(l.code);
      if (mine?.skip) {
        lines.push({ nfe: l, target: null, stockMilli: 0, unitCostCents: 0, remember: null,
          view: { ...base, action: 'skip', matchedBy: 'confirmed', item: null, stockQuantity: null, unitCost: null, previousCost: null, reason: 'left out as asked' } });
        continue;
      }
      const measured = measureOf(l);
      let target: Target | null = null;
      let rule: MatchRule | null = null;
      let factor: number | null = null;
      let reason = '';
      let remember: number | null = null;
      const remembered = stored.get(l.code);
      if (mine?.itemId) {
        target = byId.get(mine.itemId)!;
        rule = 'confirmed';
        reason = 'mapping confirmed with this import';
        factor = mine.factor !== undefined ? milli(mine.factor) : null;
      } else if (remembered && byId.has(remembered.itemId)) {
        target = byId.get(remembered.itemId)!;
        rule = 'mapping';
        reason = `remembered mapping of ${nfe.emitter.document} code ${l.code}`;
        factor = remembered.factorMilli;
      } else if (createdFor.has(l.code)) {
        target = createdFor.get(l.code)!;
        rule = 'line';
        reason = 'the item created for an earlier line with the same code';
      } else if (ean && byEan.has(ean)) {
        target = byEan.get(ean)!;
        rule = 'ean';
        reason = `EAN ${ean}`;
      } else {
        const named = byName.get(normalizeName(l.name)) ?? [];
        if (named.length === 1) {
          target = named[0];
          rule = 'name';
          reason = `same name as "${named[0].name}"`;
        } else if (named.length > 1) {
          reason = `${named.length} items are named "${named[0].name}": confirm a mapping`;
        }
      }
      if (factor === null && target) factor = factorInto(measured.measure, target.unit, target.packSizeMilli);
      if (rule === 'confirmed') remember = factor;

      let action: ImportLineView['action'];
      if (target) {
        if (factor === null) {
          action = 'review';
          reason = measured.measure
            ? `${reason}; the invoice counts ${l.unit} (${measured.measure.base}) and the item is counted in ${target.unit}: confirm a mapping with a factor`
            : `${reason}; ${l.unit} is a box of unknown size and the item has no pack size: confirm a mapping with a factor`;
        } else action = 'match';
      } else if (reason) {
        action = 'review';
      } else {
        // A new item: sku from the supplier code (made unique), unit from the invoice's.
        const measure = measured.measure ?? { base: 'un' as const, perMilli: 1000 };
        const unit = STOCK_OF[measure.base];
        factor = factorInto(measure, unit, null)!;
        let sku = l.code.trim().slice(0, 64);
        if (skus.has(sku.toLowerCase())) sku = `${l.code.trim().slice(0, 40)}-${nfe.emitter.document.slice(0, 8)}`;
        for (let n = 2; skus.has(sku.toLowerCase()); n++) sku = `${l.code.trim().slice(0, 40)}-${nfe.emitter.document.slice(0, 8)}-${n}`;
        skus.add(sku.toLowerCase());
        target = {
          id: null,
          name: l.name.replace(/\s+/g, ' ').trim().slice(0, 120),
          sku,
          unit,
          packSizeMilli: measured.box && measured.measure ? measured.measure.perMilli : null,
          costCents: null,
          ean: ean && !byEan.has(ean) ? ean : null,
          proposal: proposals.length,
        };
        proposals.push(target);
        createdFor.set(l.code, target);
        if (target.ean) byEan.set(target.ean, target);
        addName(target);
        action = 'create';
        reason = 'no remembered mapping, EAN or name matches: a new item';
        remember = factor;
        if (!measured.measure) errors.push({ line: l.line, code: 'box_counted', message: `${l.unit} is a box of unknown size: the new item counts boxes` });
      }
      if (measured.assumed) errors.push({ line: l.line, code: 'unit_assumed', message: `unit ${l.unit} is not known: counted as units (un)` });

      const stockMilli = factor === null ? 0 : stockMilliOf(l.quantity, factor);
      if (action === 'match' || action === 'create') {
        if (stockMilli <= 0) {
          action = 'review';
          reason = `${reason}; the quantity is 0 in the item's unit`;
        }
      }
      if (action === 'review') errors.push({ line: l.line, code: 'needs_review', message: reason });
      const unitCostCents = factor ? unitCostOf(l.unitPrice, factor) : 0;
      const counted = action === 'match' || action === 'create';
      lines.push({
        nfe: l,
        target: counted ? target : null,
        stockMilli,
        unitCostCents,
        remember: counted ? remember : null,
        view: {
          ...base,
          action,
          matchedBy: rule,
          item: target ? { _id: target.id, name: target.name, sku: target.sku, unit: target.unit } : null,
          stockQuantity: counted ? fromMilli(stockMilli) : null,
          unitCost: counted ? unitCostCents : null,
          previousCost: target && target.id ? target.costCents : null,
          reason,
        },
      });
    }
    return { lines, proposals, errors };
  }

  function result(nfe: Nfe, dryRun: boolean, planned: Awaited<ReturnType<typeof plan>>): ImportResultView {
    const counted = planned.lines.filter((l) => l.view.action === 'match' || l.view.action === 'create');
    const review = planned.lines.filter((l) => l.view.action === 'review').length;
    return {
      success: review === 0,
      dryRun,
      nfeNumber: nfe.number,
      nfeKey: nfe.key,
      emitter: nfe.emitter.name,
      emitterCnpj: nfe.emitter.document,
      total: nfe.totalCents,
      totalItems: nfe.lines.length,
      created: planned.proposals.length,
      updated: new Set(counted.filter((l) => l.target!.proposal === null).map((l) => l.target!.id)).size,
      movements: counted.length,
      skipped: planned.lines.filter((l) => l.view.action === 'skip').length,
      errors: planned.errors,
      lines: planned.lines.map((l) => l.view),
    };
  }

  return {
    /** `listener` runs inside an import's transaction when it changed inventory items' costs (the cost sheets snapshot their dishes). */
    onItemCostsChanged(listener: ItemCostsChangedListener) {
      costListeners.push(listener);
    },

    /**
     * Imports a supplier NF-e (or, `dryRun`, answers what it would do). 400: not an importable NF-e, the
     * recipient is not the tenant or a branch, a line needs review; 409: the key was imported already.
     */
    importInvoice: async (t: TenantDb, caller: { userId: string }, input: ImportInput): Promise<ImportResultView> => {
      const nfe = parseNfe(input.xml.replace(/^\uFEFF/, ''));
      const confirmed = readMappings(input.mappings, nfe);
      checkRecipient(nfe, await recipientsOf(t));
      return t.run(async (tx) => {
        const already = await q.findInvoiceByKey(tx.db, tx.tenantId, nfe.key);
        const duplicate = () =>
          new Conflict(`The NF-e ${nfe.key} (number ${nfe.number}) was imported already${already ? ` on ${already.createdAt.toISOString()}` : ''}`, 'nfe_already_imported');
        if (already) throw duplicate();
        const planned = await plan(tx, nfe, confirmed);
        const answer = result(nfe, input.dryRun, planned);
        if (input.dryRun) return answer;
        const review = planned.lines.filter((l) => l.view.action === 'review');
        if (review.length) {
          throw new Invalid(
            review.map((l) => ({ field: 'file', message: `line ${l.nfe.line} (${l.nfe.code} ${l.nfe.name}): ${l.view.reason}` })),
            { code: 'lines_need_review', in: 'body', summary: `${review.length} line(s) need a mapping before the import (see dryRun=true): nothing was written` },
          );
        }
        const now = deps.clock.now();
        // The key first: a concurrent import of the same invoice waits here and then fails on the unique key.
        let invoiceId: string;
        try {
          invoiceId = (
            await q.insertInvoice(tx.db, {
              tenantId: tx.tenantId,
              id: newId(),
              nfeKey: nfe.key,
              nfeNumber: nfe.number,
              emitterCnpj: nfe.emitter.document,
              emitterName: nfe.emitter.name,
              supplierId: await q.supplierIdByCnpj(tx.db, tx.tenantId, nfe.emitter.document),
              totalCents: nfe.totalCents,
              itemsCount: nfe.lines.length,
              summary: {},
              importedBy: caller.userId,
              createdAt: now,
            })
          ).id;
        } catch (err) {
          if (isUniqueViolation(err, q.INVOICE_KEY)) throw duplicate();
          throw err;
        }
        for (const p of planned.proposals) {
          const created = await needs.inventory.createItem(tx, { userId: caller.userId, branchScope: { all: true } }, {
            name: p.name,
            sku: p.sku,
            unit: p.unit,
            cost: 0,
            currentStock: 0,
            minStock: 0,
            ean: p.ean,
            packSize: p.packSizeMilli === null ? null : fromMilli(p.packSizeMilli),
          });
          p.id = created._id;
        }
        const notes = `NF-e ${nfe.number} ${nfe.emitter.name}`.slice(0, 200);
        const movementIds: string[] = [];
        const costs = new Map<string, { before: number; after: number }>();
        for (const l of planned.lines) {
          if (!l.target) continue;
          l.view.item = { _id: l.target.id, name: l.target.name, sku: l.target.sku, unit: l.target.unit };
          const { movement } = await needs.inventory.receiveStock(tx, {
            itemId: l.target.id!,
            quantityMilli: l.stockMilli,
            unitCostCents: l.unitCostCents,
            setCost: true,
            notes: `${notes}, line ${l.nfe.line}`,
            userId: caller.userId,
          });
          movementIds.push(movement._id);
          costs.set(l.target.id!, { before: costs.get(l.target.id!)?.before ?? l.target.costCents ?? 0, after: l.unitCostCents });
          if (l.remember !== null) {
            await q.upsertMapping(tx.db, {
              tenantId: tx.tenantId,
              supplierCnpj: nfe.emitter.document,
              supplierCode: l.nfe.code,
              itemId: l.target.id!,
              factorMilli: l.remember,
              now,
            });
          }
        }
        if (movementIds.length) await received(tx, { kind: 'invoice', id: invoiceId, movementIds });
        const costChanged = [...costs].filter(([, c]) => c.before !== c.after).map(([id]) => id);
        if (costChanged.length) for (const listener of costListeners) await listener(tx, { itemIds: costChanged, userId: caller.userId });
        const written = result(nfe, false, planned);
        await q.setInvoiceSummary(tx.db, tx.tenantId, invoiceId, { ...written });
        return written;
      });
    },
  };
}
