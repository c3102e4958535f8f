import { and, asc, count, eq, inArray, isNotNull, isNull, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import {
  menuCategories,
  menuItemModifierGroups,
  menuItems,
  menuVersions,
  modifierGroups,
  type MenuCategoryRow,
  type MenuItemRow,
  type ModifierGroupRow,
} from '../../db/schema/menu.js';

/** Names compare as a Brazilian reader expects (accents next to their letter, case ignored). */
const collator = new Intl.Collator('pt-BR', { sensitivity: 'base', numeric: true });

// ---- version

/**
 * The tenant's menu version. It runs on every public menu read, so it is a named statement: on
 * PostgreSQL each pooled connection parses it once.
 */
export async function menuVersion(db: Db, tenantId: string): Promise<number> {
  const [row] = await db
    .select({ v: menuVersions.version })
    .from(menuVersions)
    .where(eq(menuVersions.tenantId, sql.placeholder('tenantId')))
    .prepare('menu_version')
    .execute({ tenantId });
  return row?.v ?? 0;
}

/**
 * Called first in every menu write's transaction: the row lock it takes serialises the menu writes
 * of one tenant, so checks such as "category still has items" cannot race a concurrent write.
 */
export async function bumpVersion(db: Db, tenantId: string) {
  await db
    .insert(menuVersions)
    .values({ tenantId, version: 1 })
    .onConflictDoUpdate({ target: menuVersions.tenantId, set: { version: sql`${menuVersions.version} + 1` } });
}

// ---- categories

export async function listCategories(db: Db, tenantId: string, { activeOnly }: { activeOnly: boolean }): Promise<MenuCategoryRow[]> {
  const where = activeOnly
    ? and(eq(menuCategories.tenantId, tenantId), eq(menuCategories.isActive, true))
    : eq(menuCategories.tenantId, tenantId);
  const rows = await db.select().from(menuCategories).where(where);
  return rows.sort((a, b) => a.order - b.order || collator.compare(a.name, b.name) || (a.id < b.id ? -1 : 1));
}

export async function findCategory(db: Db, tenantId: string, id: string): Promise<MenuCategoryRow | null> {
  const [row] = await db
    .select()
    .from(menuCategories)
    .where(and(eq(menuCategories.tenantId, tenantId), eq(menuCategories.id, id)));
  return row ?? null;
}

export async function insertCategory(db: Db, row: typeof menuCategories.$inferInsert): Promise<MenuCategoryRow> {
  const [created] = await db.insert(menuCategories).values(row).returning();
  return created;
}

export async function updateCategory(
  db: Db,
  tenantId: string,
  id: string,
  patch: Partial<Pick<MenuCategoryRow, 'name' | 'order' | 'isActive'>>,
): Promise<MenuCategoryRow | null> {
  const [row] = await db
    .update(menuCategories)
    .set({ ...patch, updatedAt: sql`now()` })
    .where(and(eq(menuCategories.tenantId, tenantId), eq(menuCategories.id, id)))
    .returning();
  return row ?? null;
}

export async function countLiveItemsInCategory(db: Db, tenantId: string, categoryId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(menuItems)
    .where(and(eq(menuItems.tenantId, tenantId), eq(menuItems.categoryId, categoryId), isNull(menuItems.deletedAt)));
  return Number(row?.n ?? 0);
}

/** Deleted items keep their history but let go of a category that is being removed. */
export async function detachDeletedItemsFromCategory(db: Db, tenantId: string, categoryId: string) {
  await db
    .update(menuItems)
    .set({ categoryId: null })
    .where(and(eq(menuItems.tenantId, tenantId), eq(menuItems.categoryId, categoryId), isNotNull(menuItems.deletedAt)));
}

export async function deleteCategory(db: Db, tenantId: string, id: string) {
  await db.delete(menuCategories).where(and(eq(menuCategories.tenantId, tenantId), eq(menuCategories.id, id)));
}

// ---- items

export type ItemRow = MenuItemRow & { modifierGroupIds: string[] };

const itemColumns = {
  tenantId: menuItems.tenantId,
  id: menuItems.id,
  categoryId: menuItems.categoryId,
  name: menuItems.name,
  description: menuItems.description,
  price: menuItems.price,
  unit: menuItems.unit,
  preparationTime: menuItems.preparationTime,
  order: menuItems.order,
  station: menuItems.station,
  isAvailable: menuItems.isAvailable,
  isActive: menuItems.isActive,
  allergens: menuItems.allergens,
  ncm: menuItems.ncm,
  cfop: menuItems.cfop,
  cest: menuItems.cest,
  taxCode: menuItems.taxCode,
  externalCodes: menuItems.externalCodes,
  deletedAt: menuItems.deletedAt,
  createdAt: menuItems.createdAt,
  updatedAt: menuItems.updatedAt,
};

/** Group ids of the given items (or of every item of the tenant), each list in display order. */
async function groupIdsByItem(db: Db, tenantId: string, itemIds?: string[]): Promise<Map<string, string[]>> {
  const where = itemIds
    ? and(eq(menuItemModifierGroups.tenantId, tenantId), inArray(menuItemModifierGroups.itemId, itemIds))
    : eq(menuItemModifierGroups.tenantId, tenantId);
  const links = await db
    .select({ itemId: menuItemModifierGroups.itemId, groupId: menuItemModifierGroups.groupId })
    .from(menuItemModifierGroups)
    .where(where)
    .orderBy(asc(menuItemModifierGroups.itemId), asc(menuItemModifierGroups.position));
  const out = new Map<string, string[]>();
  for (const l of links) {
    const list = out.get(l.itemId);
    if (list) list.push(l.groupId);
    else out.set(l.itemId, [l.groupId]);
  }
  return out;
}

export interface ItemFilter {
  /** Only what customers see: item active and available, category active. */
  publicOnly?: boolean;
  categoryId?: string;
  isAvailable?: boolean;
  isActive?: boolean;
}

/** Live (not deleted) items in menu order: category order and name, then the item's order and name. */
export async function listItems(db: Db, tenantId: string, filter: ItemFilter): Promise<ItemRow[]> {
  const where: SQL[] = [eq(menuItems.tenantId, tenantId), isNull(menuItems.deletedAt)];
  if (filter.publicOnly) {
    where.push(eq(menuItems.isActive, true), eq(menuItems.isAvailable, true), eq(menuCategories.isActive, true));
  }
  if (filter.categoryId !== undefined) where.push(eq(menuItems.categoryId, filter.categoryId));
  if (filter.isAvailable !== undefined) where.push(eq(menuItems.isAvailable, filter.isAvailable));
  if (filter.isActive !== undefined) where.push(eq(menuItems.isActive, filter.isActive));
  const [rows, groups] = await Promise.all([
    db
      .select({ ...itemColumns, categoryOrder: menuCategories.order, categoryName: menuCategories.name })
      .from(menuItems)
      .innerJoin(menuCategories, and(eq(menuCategories.tenantId, menuItems.tenantId), eq(menuCategories.id, menuItems.categoryId)))
      .where(and(...where)),
    groupIdsByItem(db, tenantId),
  ]);
  // Sorted here rather than in SQL: locale-aware and cheaper than the database collation.
  rows.sort(
    (a, b) =>
      a.categoryOrder - b.categoryOrder ||
      collator.compare(a.categoryName, b.categoryName) ||
      (a.categoryId! < b.categoryId! ? -1 : a.categoryId! > b.categoryId! ? 1 : 0) ||
      a.order - b.order ||
      collator.compare(a.name, b.name) ||
      (a.id < b.id ? -1 : 1),
  );
  return rows.map(({ categoryOrder: _o, categoryName: _n, ...item }) => ({ ...item, modifierGroupIds: groups.get(item.id) ?? [] }));
}

/** Live items by id (missing and deleted ones are simply absent). */
export async function itemsByIds(db: Db, tenantId: string, ids: string[]): Promise<ItemRow[]> {
  if (!ids.length) return [];
  const [rows, groups] = await Promise.all([
    db
      .select(itemColumns)
      .from(menuItems)
      .where(and(eq(menuItems.tenantId, tenantId), inArray(menuItems.id, ids), isNull(menuItems.deletedAt))),
    groupIdsByItem(db, tenantId, ids),
  ]);
  return rows.map((item) => ({ ...item, modifierGroupIds: groups.get(item.id) ?? [] }));
}

export async function findItem(db: Db, tenantId: string, id: string): Promise<ItemRow | null> {
  const [row] = await itemsByIds(db, tenantId, [id]);
  return row ?? null;
}

/** An item by id, deleted or not (the delivery catalogs are told of a deletion). */
export async function findItemWithDeleted(db: Db, tenantId: string, id: string): Promise<ItemRow | null> {
  const [row] = await db.select(itemColumns).from(menuItems).where(and(eq(menuItems.tenantId, tenantId), eq(menuItems.id, id)));
  if (!row) return null;
  const groups = await groupIdsByItem(db, tenantId, [id]);
  return { ...row, modifierGroupIds: groups.get(id) ?? [] };
}

/** Whether customers may see the item: live, active, and in an active category. */
export async function isItemPublic(db: Db, tenantId: string, id: string): Promise<boolean> {
  const rows = await db
    .select({ id: menuItems.id })
    .from(menuItems)
    .innerJoin(menuCategories, and(eq(menuCategories.tenantId, menuItems.tenantId), eq(menuCategories.id, menuItems.categoryId)))
    .where(
      and(
        eq(menuItems.tenantId, tenantId),
        eq(menuItems.id, id),
        isNull(menuItems.deletedAt),
        eq(menuItems.isActive, true),
        eq(menuCategories.isActive, true),
      ),
    );
  return rows.length > 0;
}

export async function insertItem(db: Db, row: typeof menuItems.$inferInsert) {
  await db.insert(menuItems).values(row);
}

export async function updateItem(
  db: Db,
  tenantId: string,
  id: string,
  patch: Partial<Omit<typeof menuItems.$inferInsert, 'tenantId' | 'id' | 'createdAt'>>,
): Promise<boolean> {
  const rows = await db
    .update(menuItems)
    .set({ ...patch, updatedAt: sql`now()` })
    .where(and(eq(menuItems.tenantId, tenantId), eq(menuItems.id, id), isNull(menuItems.deletedAt)))
    .returning({ id: menuItems.id });
  return rows.length > 0;
}

export async function softDeleteItem(db: Db, tenantId: string, id: string): Promise<boolean> {
  const rows = await db
    .update(menuItems)
    .set({ deletedAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(eq(menuItems.tenantId, tenantId), eq(menuItems.id, id), isNull(menuItems.deletedAt)))
    .returning({ id: menuItems.id });
  return rows.length > 0;
}

export async function setItemGroups(db: Db, tenantId: string, itemId: string, groupIds: string[]) {
  await db
    .delete(menuItemModifierGroups)
    .where(and(eq(menuItemModifierGroups.tenantId, tenantId), eq(menuItemModifierGroups.itemId, itemId)));
  if (groupIds.length) {
    await db.insert(menuItemModifierGroups).values(groupIds.map((groupId, position) => ({ tenantId, itemId, groupId, position })));
  }
}

// ---- modifier groups

export function listGroups(db: Db, tenantId: string): Promise<ModifierGroupRow[]> {
  return db
    .select()
    .from(modifierGroups)
    .where(and(eq(modifierGroups.tenantId, tenantId), isNull(modifierGroups.deletedAt)))
    .orderBy(asc(modifierGroups.name), asc(modifierGroups.id));
}

/** Live groups by id, in no particular order. */
export async function groupsByIds(db: Db, tenantId: string, ids: string[]): Promise<ModifierGroupRow[]> {
  if (!ids.length) return [];
  return db
    .select()
    .from(modifierGroups)
    .where(and(eq(modifierGroups.tenantId, tenantId), inArray(modifierGroups.id, ids), isNull(modifierGroups.deletedAt)));
}

export async function findGroup(db: Db, tenantId: string, id: string): Promise<ModifierGroupRow | null> {
  const [row] = await groupsByIds(db, tenantId, [id]);
  return row ?? null;
}

export async function insertGroup(db: Db, row: typeof modifierGroups.$inferInsert): Promise<ModifierGroupRow> {
  const [created] = await db.insert(modifierGroups).values(row).returning();
  return created;
}

export async function updateGroup(
  db: Db,
  tenantId: string,
  id: string,
  patch: Partial<Omit<typeof modifierGroups.$inferInsert, 'tenantId' | 'id' | 'createdAt'>>,
): Promise<ModifierGroupRow | null> {
  const [row] = await db
    .update(modifierGroups)
    .set({ ...patch, updatedAt: sql`now()` })
    .where(and(eq(modifierGroups.tenantId, tenantId), eq(modifierGroups.id, id), isNull(modifierGroups.deletedAt)))
    .returning();
  return row ?? null;
}

/** Soft-deletes the group and detaches it from every item; returns false when there was no live group. */
export async function softDeleteGroup(db: Db, tenantId: string, id: string): Promise<boolean> {
  const rows = await db
    .update(modifierGroups)
    .set({ deletedAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(eq(modifierGroups.tenantId, tenantId), eq(modifierGroups.id, id), isNull(modifierGroups.deletedAt)))
    .returning({ id: modifierGroups.id });
  if (!rows.length) return false;
  await db
    .delete(menuItemModifierGroups)
    .where(and(eq(menuItemModifierGroups.tenantId, tenantId), eq(menuItemModifierGroups.groupId, id)));
  return true;
}
