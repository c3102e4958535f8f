import { randomBytes } from 'node:crypto';
import { count, eq } from 'drizzle-orm';
import type { Services } from './app.js';
import { seedDemoBranches } from './modules/branches/branches.demo.js';
import type { Config } from './config.js';
import type { Db } from './db/client.js';
import { users } from './db/schema/users.js';
import { seedDemoMenu } from './modules/menu/menu.demo.js';
import { seedDemoReservations } from './modules/reservations/reservations.demo.js';
import { seedDemoTables } from './modules/tables/tables.demo.js';
import { systemClock } from './platform/clock.js';

export interface SeedLogin {
  who: string;
  email: string;
  password: string | null;
  tenant?: string;
}

const generatedPassword = () => randomBytes(9).toString('base64url');

/**
 * First start on an empty database: the superadmin and the demo tenant.
 * Returns the logins to print once; nothing is created when users already exist.
 */
export async function seedFirstStart(db: Db, services: Services, config: Config, env = process.env): Promise<SeedLogin[]> {
  const [{ n }] = await db.select({ n: count() }).from(users).where(eq(users.isSuperadmin, true));
  if (Number(n) > 0) return [];
  const logins: SeedLogin[] = [];

  const saEmail = config.superadminEmail ?? 'superadmin@example.com';
  const saPassword = config.superadminPassword ?? generatedPassword();
  await services.users.createAccount({ email: saEmail, name: 'Platform superadmin', password: saPassword, isSuperadmin: true });
  // A password the operator chose is not printed back.
  logins.push({ who: 'superadmin', email: saEmail, password: config.superadminPassword ? null : saPassword });

  if (!config.seedDemo || (await services.tenants.findBySlug('demo'))) return logins;
  const demoPassword = env.DEMO_PASSWORD || generatedPassword();
  const tenant = await services.tenants.create({
    name: 'Cantina Demo',
    slug: 'demo',
    email: 'contato@cantina-demo.com.br',
    primaryColor: '#b5442c',
    plan: 'premium',
    businessType: 'restaurant',
  });
  const points = await seedDemoBranches(services.branches, tenant._id);
  for (const [role, email, name] of [
    ['admin', 'admin@demo.local', 'Ana Admin'],
    ['staff', 'staff@demo.local', 'Bruno Garçom'],
  ] as const) {
    const id = await services.users.createAccount({ email, name, password: demoPassword });
    await services.users.addMember(tenant._id, id, role, role === 'staff' ? { assignedPdvIds: points.pdvIds } : {});
    logins.push({ who: `demo ${role}`, email, password: demoPassword, tenant: 'demo' });
  }
  await seedDemoMenu(services.menu, tenant._id);
  await seedDemoTables(services.tables, tenant._id);
  await seedDemoReservations(services.reservations, { id: tenant._id, timezone: tenant.timezone }, systemClock);
  return logins;
}
