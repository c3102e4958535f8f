import { newId } from '../../db/ids.js';
import type { Db } from '../../db/client.js';
import type { MenuCategoryRow, ModifierGroupRow, ModifierOption } from '../../db/schema/menu.js';
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
    category: i.categoryId ?? '',
    preparationTime: i.preparationTime,
    isAvailable: i.isAvailable,
    isActive: i.isActive,
    allergens: i.allergens,
    modifierGroupIds: i.modifierGroupIds,
    createdAt: i.createdAt.toISOString(),
    updatedAt: i.updatedAt.toISOString(),
  };
}

/** What the orders module needs of an item to price and validate a line. */
export interface OrderableItem {
  id: string;
  name: string;
  /** Integer cents. */
  price: number;
  categoryId: string | null;
  /** True when the item is active and available: it may be ordered. */
  orderable: boolean;
  isActive: boolean;
  isAvailable: boolean;
  allergens: string[];
  preparationTime: number | null;
  /** Its modifier groups, expanded, in display order. */
  modifierGroups: ModifierGroupView[];
}

export interface ModifierSelection {
  groupId: string;
  options: string[];
}

/** Public menu responses may be kept by browsers and proxies for a minute (spec section 8). */
export const PUBLIC_MENU_CACHE_CONTROL = 'public, max-age=60';

const dedupe = (values: string[]) => [...new Set(values.map((v) => v.trim()))];

export function menuService({ db }: Deps) {
  const cache = versionedBodyCache();
  /** Checked on every public read; simultaneous reads share a round trip that started after they arrived. */
  const currentVersion = freshReadCoalescer(q.menuVersionReader(db));

  /** The cached body of a public read, rebuilt only when the tenant's menu version moved. */
  async function cached(tenantId: string, key: string, build: () => Promise<unknown>): Promise<CachedBody> {
    // Version first, data second: a body is never older than the version it is filed under.
    const version = await currentVersion(tenantId);
    const k = `${tenantId}:${key}`;
    return cache.get(k, version) ?? cache.set(k, version, await build());
  }

  /** Runs a menu write in one transaction that also bumps the tenant's menu version. */
  function write<T>(tenantId: string, fn: (tx: Db) => Promise<T>): Promise<T> {
    return db.transaction(async (tx) => {
      await q.bumpVersion(tx, tenantId);
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

  async function itemView(exec: Db, tenantId: string, id: string): Promise<MenuItemView> {
    const row = await q.findItem(exec, tenantId, id);
    if (!row) throw new NotFound('Menu item');
    return toItemView(row);
  }

  function checkGroupRules(rules: ReturnType<typeof resolveGroupRules>) {
    const violations = groupRuleViolations(rules);
    if (violations.length) {
      throw new Invalid(violations, { code: 'modifier_group_rules' });
    }
  }

  return {
    // ---- public reads (cached bodies with ETags)

    publicCategories(tenantId: string) {
      return cached(tenantId, 'categories', async () =>
        (await q.listCategories(db, tenantId, { activeOnly: true })).map(toCategoryView),
      );
    },

    publicItems(tenantId: string, categoryId?: string) {
      return cached(tenantId, `items:${categoryId ?? '*'}`, async () =>
        (await q.listItems(db, tenantId, { publicOnly: true, categoryId })).map(toItemView),
      );
    },

    /** Item detail for customers: visible while the item and its category are active (unavailable ones say so). */
    publicItem(tenantId: string, id: string) {
      return cached(tenantId, `item:${id}`, async (): Promise<MenuItemDetailView> => {
        const row = await q.findItem(db, tenantId, id);
        if (!row || !(await q.isItemPublic(db, tenantId, id))) throw new NotFound('Menu item');
        return { ...toItemView(row), variations: await expandGroups(db, tenantId, row.modifierGroupIds), bom: null };
      });
    },

    publicGroups(tenantId: string) {
      return cached(tenantId, 'groups', async () => (await q.listGroups(db, tenantId)).map(toGroupView));
    },

    // ---- panel reads

    async listCategories(tenantId: string): Promise<CategoryView[]> {
      return (await q.listCategories(db, tenantId, { activeOnly: false })).map(toCategoryView);
    },

    async listItems(tenantId: string, filter: AdminItemsFilter = {}): Promise<MenuItemView[]> {
      const rows = await q.listItems(db, tenantId, {
        categoryId: filter.category,
        isAvailable: filter.isAvailable,
        isActive: filter.isActive,
      });
      return rows.map(toItemView);
    },

    getItem: (tenantId: string, id: string) => itemView(db, tenantId, id),

    // ---- categories

    createCategory(tenantId: string, input: CreateCategoryInput): Promise<CategoryView> {
      return write(tenantId, async (tx) =>
        toCategoryView(
          await q.insertCategory(tx, {
            tenantId,
            id: newId(),
            name: input.name.trim(),
            order: input.order ?? 0,
            isActive: input.isActive ?? true,
          }),
        ),
      );
    },

    updateCategory(tenantId: string, id: string, input: UpdateCategoryInput): Promise<CategoryView> {
      return write(tenantId, async (tx) => {
        const row = await q.updateCategory(tx, tenantId, id, { ...input, ...(input.name ? { name: input.name.trim() } : {}) });
        if (!row) throw new NotFound('Category');
        return toCategoryView(row);
      });
    },

    /** A `Conflict` while live items are in the category; deleted items let go of it. */
    deleteCategory(tenantId: string, id: string) {
      return write(tenantId, async (tx) => {
        if (!(await q.findCategory(tx, tenantId, id))) throw new NotFound('Category');
        const items = await q.countLiveItemsInCategory(tx, tenantId, id);
        if (items > 0) {
          throw new Conflict(
            `Category still has ${items} item${items > 1 ? 's' : ''}; move or delete ${items > 1 ? 'them' : 'it'} first`,
            'category_not_empty',
            [{ field: 'items', message: String(items) }],
          );
        }
        await q.detachDeletedItemsFromCategory(tx, tenantId, id);
        await q.deleteCategory(tx, tenantId, id);
        return { deleted: true };
      });
    },

    // ---- items

    createItem(tenantId: string, input: CreateItemInput): Promise<MenuItemView> {
      return write(tenantId, async (tx) => {
        await checkCategory(tx, tenantId, input.category);
        const groupIds = input.modifierGroupIds ?? [];
        await checkGroups(tx, tenantId, groupIds);
        const id = newId();
        await q.insertItem(tx, {
          tenantId,
          id,
          categoryId: input.category,
          name: input.name.trim(),
          description: input.description ?? '',
          price: input.price,
          preparationTime: input.preparationTime ?? null,
          isAvailable: input.isAvailable ?? true,
          isActive: input.isActive ?? true,
          allergens: dedupe(input.allergens ?? []),
        });
        await q.setItemGroups(tx, tenantId, id, groupIds);
        return itemView(tx, tenantId, id);
      });
    },

    updateItem(tenantId: string, id: string, input: UpdateItemInput): Promise<MenuItemView> {
      return write(tenantId, async (tx) => {
        if (!(await q.findItem(tx, tenantId, id))) throw new NotFound('Menu item');
        if (input.category !== undefined) await checkCategory(tx, tenantId, input.category);
        if (input.modifierGroupIds !== undefined) await checkGroups(tx, tenantId, input.modifierGroupIds);
        const { category, modifierGroupIds, allergens, name, ...rest } = input;
        await q.updateItem(tx, tenantId, id, {
          ...rest,
          ...(name !== undefined ? { name: name.trim() } : {}),
          ...(category !== undefined ? { categoryId: category } : {}),
          ...(allergens !== undefined ? { allergens: dedupe(allergens) } : {}),
        });
        if (modifierGroupIds !== undefined) await q.setItemGroups(tx, tenantId, id, modifierGroupIds);
        return itemView(tx, tenantId, id);
      });
    },

    /** Soft delete: the item leaves the menu, orders that name it keep a valid reference. */
    deleteItem(tenantId: string, id: string) {
      return write(tenantId, async (tx) => {
        if (!(await q.softDeleteItem(tx, tenantId, id))) throw new NotFound('Menu item');
        return { deleted: true };
      });
    },

    // ---- modifier groups

    listGroups: async (tenantId: string) => (await q.listGroups(db, tenantId)).map(toGroupView),

    createGroup(tenantId: string, input: CreateModifierGroupInput): Promise<ModifierGroupView> {
      const rules = resolveGroupRules(input);
      checkGroupRules(rules);
      return write(tenantId, async (tx) =>
        toGroupView(
          await q.insertGroup(tx, {
            tenantId,
            id: newId(),
            name: input.name.trim(),
            description: input.description ?? '',
            ...rules,
          }),
        ),
      );
    },

    updateGroup(tenantId: string, id: string, input: UpdateModifierGroupInput): Promise<ModifierGroupView> {
      return write(tenantId, async (tx) => {
        const current = await q.findGroup(tx, tenantId, id);
        if (!current) throw new NotFound('Modifier group');
        const rules = resolveGroupRules(input, current);
        checkGroupRules(rules);
        const row = await q.updateGroup(tx, tenantId, id, {
          ...(input.name !== undefined ? { name: input.name.trim() } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
          ...rules,
        });
        return toGroupView(row!);
      });
    },

    /** Soft delete and detach from every item: items stay intact, orders keep their snapshot. */
    deleteGroup(tenantId: string, id: string) {
      return write(tenantId, async (tx) => {
        if (!(await q.softDeleteGroup(tx, tenantId, id))) throw new NotFound('Modifier group');
        return { deleted: true };
      });
    },

    // ---- for other modules

    /**
     * Items an order names, with price, name, availability and modifier groups. Missing or deleted
     * ids are absent from the result: the caller decides how to answer. Pass a transaction as `exec`
     * to read inside it.
     */
    async itemsForOrder(tenantId: string, ids: string[], exec: Db = db): Promise<Map<string, OrderableItem>> {
      const rows = await q.itemsByIds(exec, tenantId, [...new Set(ids)]);
      const groups = new Map(
        (await q.groupsByIds(exec, tenantId, [...new Set(rows.flatMap((r) => r.modifierGroupIds))])).map((g) => [g.id, toGroupView(g)]),
      );
      return new Map(
        rows.map((r) => [
          r.id,
          {
            id: r.id,
            name: r.name,
            price: r.price,
            categoryId: r.categoryId,
            orderable: r.isActive && r.isAvailable,
            isActive: r.isActive,
            isAvailable: r.isAvailable,
            allergens: r.allergens,
            preparationTime: r.preparationTime,
            modifierGroups: r.modifierGroupIds.flatMap((g) => (groups.has(g) ? [groups.get(g)!] : [])),
          },
        ]),
      );
    },

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
        const picked = [...new Set(byGroup.get(g._id) ?? [])];
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

    /** Bumps the menu version, for modules whose writes change what the public menu shows (BOM data). */
    touch: (tenantId: string, exec: Db = db) => q.bumpVersion(exec, tenantId),
  };
}

export type MenuService = ReturnType<typeof menuService>;
