import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { apps } from '../../db/schema/apps.js';

export type AppRow = typeof apps.$inferSelect;

export async function listApps(db: Db, status?: AppRow['status']): Promise<AppRow[]> {
  return db.select().from(apps).where(status ? eq(apps.status, status) : undefined).orderBy(asc(apps.name), asc(apps.slug));
}

export async function findAppById(db: Db, id: string): Promise<AppRow | null> {
  const [row] = await db.select().from(apps).where(eq(apps.id, id));
  return row ?? null;
}

export async function findAppBySlug(db: Db, slug: string, status?: AppRow['status']): Promise<AppRow | null> {
  const [row] = await db.select().from(apps).where(and(eq(apps.slug, slug), status ? eq(apps.status, status) : undefined));
  return row ?? null;
}

export async function insertApp(db: Db, row: typeof apps.$inferInsert): Promise<AppRow> {
  const [created] = await db.insert(apps).values(row).returning();
  return created;
}

export async function updateApp(db: Db, id: string, patch: Partial<typeof apps.$inferInsert>): Promise<AppRow | null> {
  const [row] = await db.update(apps).set({ ...patch, updatedAt: sql`now()` }).where(eq(apps.id, id)).returning();
  return row ?? null;
}
