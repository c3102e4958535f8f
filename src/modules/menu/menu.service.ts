import { newId } from '../../db/ids.js';
import type { Db } from '../../db/client.js';
import type { TenantDb, TenantTx } from '../../db/scopes.js';
import type { MenuCategoryRow, MenuUnit, ModifierGroupRow, ModifierOption, Station } from '../../db/schema/menu.js';
import type { Deps } from '../../platform/deps.js';
import { Conflict, Invalid, NotFound } from '../../platform/domain-errors.js';
import { freshReadCoalescer, versionedBodyCache, type CachedBody } from '../../platform/http-cache.js';
import * as q from './menu.queries.js';
import { groupRuleViolations, resolveGroupRules } from './menu.rules.js';
import type {
  AdminItemsFilter,
  CategoryView,
  CreateCategoryInput,
  CreateItemInput,
  CreateModifierGroupInput,
  MenuBomView,
  AdminMenuItemView,
  MenuItemDetailView,
  MenuItemView,
  ModifierGroupView,
  UpdateCategoryInput,
  UpdateItemInput,
  UpdateModifierGroupInput,
} from './menu.schemas.js';

export function toCategoryView(c: MenuCategoryRow): CategoryView {
  return {
    _id: c.id,
    name: c.name,
    order: c.order,
    isActive: c.isActive,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

export function toGroupView(g: ModifierGroupRow): ModifierGroupView {
  return {
    _id: g.id,
    name: g.name,
    description: g.description,
    type: g.type,
    required: g.required,
    minSelections: g.minSelections,
    maxSelections: g.maxSelections,
    options: g.options.map((o) => ({ name: o.name, priceAdjustment: o.priceAdjustment, isDefault: o.isDefault, available: o.available })),
    createdAt: g.createdAt.toISOString(),
    updatedAt: g.updatedAt.toISOString(),
  };
}

export function toItemView(i: q.ItemRow): MenuItemView {
  return {
    _id: i.id,
    name: i.name,
    description: i.description,
    price: i.price,
    unit: i.unit,
    category: i.categoryId ?? '',
    preparationTime: i.preparationTime,
    order: i.order,
    station: i.station,
    isAvailable: i.isAvailable,
    isActive: i.isActive,
    allergens: i.allergens,
    modifierGroupIds: i.modifierGroupIds,
    createdAt: i.createdAt.toISOString(),
    updatedAt: i.updatedAt.toISOString(),
  };
}

/** Told, inside the transaction, that a menu item was created, changed or deleted (the delivery module syncs it to the platforms). */
export type ItemChangeListener = (tx: TenantTx, itemId: string) => Promise<void>;

/** A menu item's fiscal fields (NCM and CEST digits only, CFOP, CSOSN or CST). */
export interface ItemFiscalData {
  ncm: string | null;
  cfop: string | null;
  cest: string | null;
  taxCode: string | null;
}

/** The admin's view of an item: the public one and its fiscal fields. */
export function toAdminItemView(i: q.ItemRow): AdminMenuItemView {
  return { ...toItemView(i), ncm: i.ncm, cfop: i.cfop, cest: i.cest, taxCode: i.taxCode, externalCodes: i.externalCodes };
}

/** What the orders module needs of an item to price and validate a line. */
export interface OrderableItem {
  id: string;
  name: string;
  /** Integer cents: per kilogram when `unit` is `kg`. */
  price: number;
  /** `un`: whole quantities; `kg`: quantities in kg to 3 decimals, priced per kilogram. */
  unit: MenuUnit;
  categoryId: string | null;
  /** True when the item is active and available: it may be ordered. */
  orderable: boolean;
  isActive: boolean;
  isAvailable: boolean;
  allergens: string[];
  preparationTime: number | null;
  /** Where it is prepared (the order line keeps it). */
  station: Station;
  /** Its modifier groups, expanded, in display order. */
  modifierGroups: ModifierGroupView[];
}

export interface ModifierSelection {
  groupId: string;
  options: string[];
}

/**
 * Where the item detail's `bom` comes from (the inventory registers it): the recipe of a menu item read
 * in the caller's transaction, or null when it has none. The detail is cached under the menu version, so
 * the source's owner bumps it (`touch`) whenever what it answers changes.
 */
export type BomSource = (tx: TenantTx, menuItemId: string) => Promise<MenuBomView | null>;

/** Public menu responses may be kept by browsers and proxies for a minute (spec section 8). */
export const PUBLIC_MENU_CACHE_CONTROL = 'public, max-age=60';

const dedupe = (values: string[]) => [...new Set(values.map((v) => v.trim()))];

export function menuService({ tenantDb }: Deps) {
  const cache = versionedBodyCache();
  let bomSource: BomSource | null = null;
  /**
   * Checked on every public read; simultaneous reads of one tenant share a round trip (its own short
   * transaction bound to that tenant) that started after they arrived.
   */
  const currentVersion = freshReadCoalescer((tenantId) => tenantDb(tenantId).run((tx) => q.menuVersion(tx.db, tx.tenantId)));

  /**
   * The cached body of a public read, rebuilt only when the tenant's menu version moved. For routes:
   * not inside a transaction that writes the menu (its version is read in a transaction of its own).
   */
  async function cached(t: TenantDb, key: string, build: (tx: TenantTx) => Promise<unknown>): Promise<CachedBody> {
    // Version first, data second: a body is never older than the version it is filed under.
    const version = await currentVersion(t.tenantId);
    const k = `${t.tenantId}:${key}`;
    return cache.get(k, version) ?? cache.set(k, version, await t.run(build));
  }

  const itemListeners: ItemChangeListener[] = [];
  async function itemChanged(tx: TenantTx, itemId: string) {
    for (const listener of itemListeners) await listener(tx, itemId);
  }

  /** Runs a menu write in the tenant's transaction (the caller's, given a `TenantTx`), bumping its menu version first. */
  function write<T>(t: TenantDb, fn: (tx: TenantTx) => Promise<T>): Promise<T> {
    return t.run(async (tx) => {
      await q.bumpVersion(tx.db, tx.tenantId);
      return fn(tx);
    });
  }

  async function checkCategory(tx: Db, tenantId: string, categoryId: string) {
    if (!(await q.findCategory(tx, tenantId, categoryId))) {
      throw new Invalid('category', `unknown category ${categoryId}`);
    }
  }

  async function checkGroups(tx: Db, tenantId: string, ids: string[]) {
    const found = new Set((await q.groupsByIds(tx, tenantId, ids)).map((g) => g.id));
    const unknown = ids.filter((id) => !found.has(id));
    if (unknown.length) {
      throw new Invalid('modifierGroupIds', `unknown modifier group${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`);
    }
  }

  async function expandGroups(exec: Db, tenantId: string, ids: string[]): Promise<ModifierGroupView[]> {
    const byId = new Map((await q.groupsByIds(exec, tenantId, ids)).map((g) => [g.id, g]));
    return ids.flatMap((id) => (byId.has(id) ? [toGroupView(byId.get(id)!)] : []));
  }

  async function itemView(exec: Db, tenantId: string, id: string): Promise<AdminMenuItemView> {
    const row = await q.findItem(exec, tenantId, id);
    if (!row) throw new NotFound('Menu item');
    return toAdminItemView(row);
  }

  function checkGroupRules(rules: ReturnType<typeof resolveGroupRules>) {
    const violations = groupRuleViolations(rules);
    if (violations.length) {
      throw new Invalid(violations, { code: 'modifier_group_rules' });
    }
  }

  return {
    /** `listener` runs inside the transaction of every change of a menu item (create, update, delete). */
    onItemChange(listener: ItemChangeListener) {
      itemListeners.push(listener);
    },
    // ---- public reads (cached bodies with ETags)

    publicCategories(t: TenantDb) {
      return cached(t, 'categories', async (tx) =>
        (await q.listCategories(tx.db, tx.tenantId, { activeOnly: true })).map(toCategoryView),
      );
    },

    publicItems(t: TenantDb, categoryId?: string) {
      return cached(t, `items:${categoryId ?? '*'}`, async (tx) =>
        (await q.listItems(tx.db, tx.tenantId, { publicOnly: true, categoryId })).map(toItemView),
      );
    },

    /** Item detail for customers: visible while the item and its category are active (unavailable ones say so). */
    publicItem(t: TenantDb, id: string) {
      return cached(t, `item:${id}`, async (tx): Promise<MenuItemDetailView> => {
        const row = await q.findItem(tx.db, tx.tenantId, id);
        if (!row || !(await q.isItemPublic(tx.db, tx.tenantId, id))) throw new NotFound('Menu item');
        const bom = bomSource ? await bomSource(tx, id) : null;
        return { ...toItemView(row), variations: await expandGroups(tx.db, tx.tenantId, row.modifierGroupIds), bom };
      });
    },

    publicGroups(t: TenantDb) {
      return cached(t, 'groups', async (tx) => (await q.listGroups(tx.db, tx.tenantId)).map(toGroupView));
    },

    // ---- panel reads

    listCategories: (t: TenantDb): Promise<CategoryView[]> =>
      t.run(async (tx) => (await q.listCategories(tx.db, tx.tenantId, { activeOnly: false })).map(toCategoryView)),

    listItems: (t: TenantDb, filter: AdminItemsFilter = {}): Promise<AdminMenuItemView[]> =>
      t.run(async (tx) => {
        const rows = await q.listItems(tx.db, tx.tenantId, {
          categoryId: filter.category,
          isAvailable: filter.isAvailable,
          isActive: filter.isActive,
        });
        return rows.map(toAdminItemView);
      }),

    getItem: (t: TenantDb, id: string) => t.run((tx) => itemView(tx.db, tx.tenantId, id)),

    /** An item deleted or not, for the delivery catalogs (`deleted`: tell the platforms it is gone); null when it never existed. */
    itemForSync: (t: TenantDb, id: string): Promise<(AdminMenuItemView & { deleted: boolean }) | null> =>
      t.run(async (tx) => {
        const row = await q.findItemWithDeleted(tx.db, tx.tenantId, id);
        return row && { ...toAdminItemView(row), deleted: row.deletedAt !== null };
      }),

    // ---- categories

    createCategory(t: TenantDb, input: CreateCategoryInput): Promise<CategoryView> {
      return write(t, async (tx) =>
        toCategoryView(
          await q.insertCategory(tx.db, {
            tenantId: tx.tenantId,
            id: newId(),
            name: input.name.trim(),
            order: input.order ?? 0,
            isActive: input.isActive ?? true,
          }),
        ),
      );
    },

    updateCategory(t: TenantDb, id: string, input: UpdateCategoryInput): Promise<CategoryView> {
      return write(t, async (tx) => {
        const row = await q.updateCategory(tx.db, tx.tenantId, id, { ...input, ...(input.name ? { name: input.name.trim() } : {}) });
        if (!row) throw new NotFound('Category');
        return toCategoryView(row);
      });
    },

    /** A `Conflict` while live items are in the category; deleted items let go of it. */
    deleteCategory(t: TenantDb, id: string) {
      return write(t, async (tx) => {
        if (!(await q.findCategory(tx.db, tx.tenantId, id))) throw new NotFound('Category');
        const items = await q.countLiveItemsInCategory(tx.db, tx.tenantId, id);
        if (items > 0) {
          throw new Conflict(
            `Category still has ${items} item${items > 1 ? 's' : ''}; move or delete ${items > 1 ? 'them' : 'it'} first`,
            'category_not_empty',
            [{ field: 'items', message: String(items) }],
          );
        }
        await q.detachDeletedItemsFromCategory(tx.db, tx.tenantId, id);
        await q.deleteCategory(tx.db, tx.tenantId, id);
        return { deleted: true };
      });
    },

    // ---- items

    createItem(t: TenantDb, input: CreateItemInput): Promise<AdminMenuItemView> {
      return write(t, async (tx) => {
        await checkCategory(tx.db, tx.tenantId, input.category);
        const groupIds = input.modifierGroupIds ?? [];
        await checkGroups(tx.db, tx.tenantId, groupIds);
        const id = newId();
        await q.insertItem(tx.db, {
          tenantId: tx.tenantId,
          id,
          categoryId: input.category,
          name: input.name.trim(),
          description: input.description ?? '',
          price: input.price,
          unit: input.unit ?? 'un',
          preparationTime: input.preparationTime ?? null,
          order: input.order ?? 0,
          station: input.station ?? 'kitchen',
          isAvailable: input.isAvailable ?? true,
          isActive: input.isActive ?? true,
          allergens: dedupe(input.allergens ?? []),
          ncm: input.ncm ?? null,
          cfop: input.cfop ?? null,
          cest: input.cest ?? null,
          taxCode: input.taxCode ?? null,
          externalCodes: input.externalCodes ?? {},
        });
        await q.setItemGroups(tx.db, tx.tenantId, id, groupIds);
        await itemChanged(tx, id);
        return itemView(tx.db, tx.tenantId, id);
      });
    },

    updateItem(t: TenantDb, id: string, input: UpdateItemInput): Promise<AdminMenuItemView> {
      return write(t, async (tx) => {
        if (!(await q.findItem(tx.db, tx.tenantId, id))) throw new NotFound('Menu item');
        if (input.category !== undefined) await checkCategory(tx.db, tx.tenantId, input.category);
        if (input.modifierGroupIds !== undefined) await checkGroups(tx.db, tx.tenantId, input.modifierGroupIds);
        const { category, modifierGroupIds, allergens, name, ...rest } = input;
        await q.updateItem(tx.db, tx.tenantId, id, {
          ...rest,
          ...(name !== undefined ? { name: name.trim() } : {}),
          ...(category !== undefined ? { categoryId: category } : {}),
          ...(allergens !== undefined ? { allergens: dedupe(allergens) } : {}),
        });
        if (modifierGroupIds !== undefined) await q.setItemGroups(tx.db, tx.tenantId, id, modifierGroupIds);
        await itemChanged(tx, id);
        return itemView(tx.db, tx.tenantId, id);
      });
    },

    /** Soft delete: the item leaves the menu, orders that name it keep a valid reference. */
    deleteItem(t: TenantDb, id: string) {
      return write(t, async (tx) => {
        if (!(await q.softDeleteItem(tx.db, tx.tenantId, id))) throw new NotFound('Menu item');
        await itemChanged(tx, id);
        return { deleted: true };
      });
    },

    // ---- modifier groups

    listGroups: (t: TenantDb) => t.run(async (tx) => (await q.listGroups(tx.db, tx.tenantId)).map(toGroupView)),

    createGroup(t: TenantDb, input: CreateModifierGroupInput): Promise<ModifierGroupView> {
      const rules = resolveGroupRules(input);
      checkGroupRules(rules);
      return write(t, async (tx) =>
        toGroupView(
          await q.insertGroup(tx.db, {
            tenantId: tx.tenantId,
            id: newId(),
            name: input.name.trim(),
            description: input.description ?? '',
            ...rules,
          }),
        ),
      );
    },

    updateGroup(t: TenantDb, id: string, input: UpdateModifierGroupInput): Promise<ModifierGroupView> {
      return write(t, async (tx) => {
        const current = await q.findGroup(tx.db, tx.tenantId, id);
        if (!current) throw new NotFound('Modifier group');
        const rules = resolveGroupRules(input, current);
        checkGroupRules(rules);
        const row = await q.updateGroup(tx.db, tx.tenantId, id, {
          ...(input.name !== undefined ? { name: input.name.trim() } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
          ...rules,
        });
        return toGroupView(row!);
      });
    },

    /** Soft delete and detach from every item: items stay intact, orders keep their snapshot. */
    deleteGroup(t: TenantDb, id: string) {
      return write(t, async (tx) => {
        if (!(await q.softDeleteGroup(tx.db, tx.tenantId, id))) throw new NotFound('Modifier group');
        return { deleted: true };
      });
    },

    // ---- for other modules

    /** Registers where the item detail's `bom` comes from (the inventory's recipes); see `BomSource`. */
    setBomSource(source: BomSource) {
      bomSource = source;
    },

    /** For the fiscal module: each (not deleted) item's fiscal data, null where not set (the emission applies its defaults). */
    fiscalDataOf: (t: TenantDb, ids: string[]): Promise<Map<string, ItemFiscalData>> =>
      t.run(async (tx) => {
        const rows = await q.itemsByIds(tx.db, tx.tenantId, [...new Set(ids)]);
        return new Map(rows.map((r) => [r.id, { ncm: r.ncm, cfop: r.cfop, cest: r.cest, taxCode: r.taxCode }]));
      }),

    /**
     * Items an order names, with price, name, availability and modifier groups. Missing or deleted
     * ids are absent from the result: the caller decides how to answer. Pass the caller's `TenantTx`
     * to read inside its transaction.
     */
    itemsForOrder: (t: TenantDb, ids: string[]): Promise<Map<string, OrderableItem>> =>
      t.run(async (tx) => {
        const rows = await q.itemsByIds(tx.db, tx.tenantId, [...new Set(ids)]);
        const groups = new Map(
          (await q.groupsByIds(tx.db, tx.tenantId, [...new Set(rows.flatMap((r) => r.modifierGroupIds))])).map((g) => [g.id, toGroupView(g)]),
        );
        return new Map(
          rows.map((r) => [
            r.id,
            {
              id: r.id,
              name: r.name,
              price: r.price,
              unit: r.unit,
              categoryId: r.categoryId,
              orderable: r.isActive && r.isAvailable,
              isActive: r.isActive,
              isAvailable: r.isAvailable,
              allergens: r.allergens,
              preparationTime: r.preparationTime,
              station: r.station,
              modifierGroups: r.modifierGroupIds.flatMap((g) => (groups.has(g) ? [groups.get(g)!] : [])),
            },
          ]),
        );
      }),

    /**
     * Checks modifier selections for one item against its groups' rules and returns the options
     * chosen with their price adjustments (integer cents). Throws `Invalid` naming the broken rule.
     */
    priceSelections(item: OrderableItem, selections: ModifierSelection[], field = 'modifiers') {
      const chosen: { groupId: string; groupName: string; option: string; priceAdjustment: number }[] = [];
      const byGroup = new Map(selections.map((s) => [s.groupId, s.options]));
      for (const s of selections) {
        if (!item.modifierGroups.some((g) => g._id === s.groupId)) {
          throw new Invalid(field, `group ${s.groupId} is not offered with ${item.name}`);
        }
      }
      for (const g of item.modifierGroups) {
        // A group the client said nothing about takes its default options (the spec's order lines carry
        // no modifiers: a QR-menu order of a steak is "ao ponto" when that is the default).
        const sent = byGroup.get(g._id);
        const defaults = g.options.filter((o) => o.isDefault && o.available).map((o) => o.name);
        const picked = [...new Set(sent ?? defaults)];
        if (picked.length < g.minSelections || picked.length > g.maxSelections) {
          throw new Invalid(field, `${g.name}: choose ${g.minSelections === g.maxSelections ? g.minSelections : `${g.minSelections} to ${g.maxSelections}`} option(s)`);
        }
        for (const name of picked) {
          const option: ModifierOption | undefined = g.options.find((o) => o.name === name);
          if (!option) throw new Invalid(field, `${g.name}: unknown option ${name}`);
          if (!option.available) throw new Invalid(field, `${g.name}: ${name} is not available`);
          chosen.push({ groupId: g._id, groupName: g.name, option: option.name, priceAdjustment: option.priceAdjustment });
        }
      }
      return chosen;
    },

    /**
     * Bumps the menu version, for modules whose writes change what the public menu shows (BOM data).
     * Pass the caller's `TenantTx` to bump inside its transaction.
     */
    touch: (t: TenantDb) => t.run((tx) => q.bumpVersion(tx.db, tx.tenantId)),
  };
}

export type MenuService = ReturnType<typeof menuService>;
