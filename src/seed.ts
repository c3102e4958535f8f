import { randomBytes } from 'node:crypto';
import { MODULES, type Services } from './app.js';
import type { Config } from './config.js';
import type { TenantDb } from './db/scopes.js';
import { WALLET_SIM_ACCOUNT } from './integrations/wallet/index.js';
import { systemClock } from './platform/clock.js';
import { seedDemo, type DemoSeedContext, type SeedLogin } from './platform/module.js';

export type { SeedLogin } from './platform/module.js';

const generatedPassword = () => randomBytes(9).toString('base64url');

/**
 * First start on an empty database: the superadmin, then the demo tenant, which every module's
 * `demoSeed` fills in dependency order (branches and PDVs, its users, menu, tables, reservations).
 * Returns the logins to print once; nothing is created when the superadmin already exists.
 * The demo data is written through the demo tenant's own handle (`tenantDb`): the seed crosses no tenant.
 */
export async function seedFirstStart(tenantDb: (tenantId: string) => TenantDb, services: Services, config: Config, env = process.env): Promise<SeedLogin[]> {
  if (await services.users.hasSuperadmin()) return [];
  const logins: SeedLogin[] = [];

  const saEmail = config.superadminEmail ?? 'superadmin@example.com';
  const saPassword = config.superadminPassword ?? generatedPassword();
  await services.users.createAccount({ email: saEmail, name: 'Platform superadmin', password: saPassword, isSuperadmin: true });
  // A password the operator chose is not printed back.
  logins.push({ who: 'superadmin', email: saEmail, password: config.superadminPassword ? null : saPassword });

  if (!config.seedDemo || (await services.tenants.findBySlug('demo'))) return logins;
  const tenant = await services.tenants.create({
    name: 'Cantina Demo',
    slug: 'demo',
    email: 'contato@cantina-demo.com.br',
    primaryColor: '#b5442c',
    plan: 'premium',
    businessType: 'restaurant',
  });
  // The usual 10% on dine-in bills, so the demo shows a service charge (optional for the customer), and a
  // PIX key, so guest checkout on the QR menu shows a BR Code. With the wallet on its simulator (in-process or
  // standalone: both know its default account), the simulator's account, so the QR menu offers the online card.
  const walletSimulated = (config.integrations?.wallet.mode ?? 'simulator') === 'simulator';
  await services.tenants.update(tenant._id, {
    serviceChargePercent: 10,
    pixKey: 'pix@cantina-demo.com.br',
    // The company the tax files (SPED ECD, EFD) name: the head office's CNPJ and state.
    cnpj: '31846259000181',
    city: 'São Paulo',
    state: 'SP',
    ...(walletSimulated ? { walletAccessToken: WALLET_SIM_ACCOUNT.accessToken, walletPublicKey: WALLET_SIM_ACCOUNT.publicKey } : {}),
  });
  const demo: DemoSeedContext = {
    tenant: { id: tenant._id, slug: tenant.slug, timezone: tenant.timezone, db: tenantDb(tenant._id) },
    password: env.DEMO_PASSWORD || generatedPassword(),
    clock: systemClock,
    addLogin: (login) => logins.push(login),
  };
  await seedDemo(MODULES, services, demo);
  return logins;
}
