import { newId } from '../../db/ids.js';
import type { TenantRow } from '../../db/schema/tenants.js';
import type { TenantCtx } from '../../platform/auth/guards.js';
import { isValidCnpj, stripDocument } from '../../platform/br-documents.js';
import { decryptSecret, encryptSecret } from '../../platform/crypto.js';
import type { Deps } from '../../platform/deps.js';
import { conflict, invalidField, isUniqueViolation, notFound } from '../../platform/errors.js';
import { isTimeZone } from '../../platform/time.js';
import * as q from './tenants.queries.js';
import type { CreateTenantInput, TenantConfigInput, TenantView, UpdateTenantInput } from './tenants.schemas.js';

export function toTenantView(t: TenantRow): TenantView {
  return {
    _id: t.id,
    name: t.name,
    slug: t.slug,
    email: t.email,
    primaryColor: t.primaryColor,
    plan: t.plan,
    isActive: t.isActive,
    businessType: t.businessType,
    timezone: t.timezone,
    createdAt: t.createdAt.toISOString(),
    cnpj: t.cnpj,
    inscricaoEstadual: t.inscricaoEstadual,
    fiscalProviderTokenSet: t.fiscalProviderTokenEnc !== null,
    fiscalProviderAmbiente: t.fiscalProviderAmbiente,
    regimeTributario: t.regimeTributario,
    address: t.address,
    addressNumber: t.addressNumber,
    district: t.district,
    city: t.city,
    state: t.state,
    cep: t.cep,
    walletAccessTokenSet: t.walletAccessTokenEnc !== null,
    walletDeviceId: t.walletDeviceId,
    walletPublicKey: t.walletPublicKey,
  };
}

const slugTaken = () => conflict('A tenant with this slug already exists', 'slug_taken');

function checkTimezone(tz: string | undefined) {
  if (tz !== undefined && !isTimeZone(tz)) throw invalidField('body.timezone', 'is not an IANA time zone');
}

export type TenantSecret = 'fiscalProviderToken' | 'walletAccessToken';

export function tenantsService({ db, config, tenants: resolver }: Deps) {
  const seal = (value: string | null | undefined) =>
    value === undefined ? undefined : value === null ? null : encryptSecret(config.encryptionKey, value);

  async function write<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (isUniqueViolation(err)) throw slugTaken();
      throw err;
    }
  }

  return {
    async list() {
      return (await q.listTenants(db)).map(toTenantView);
    },

    async create(input: CreateTenantInput): Promise<TenantView> {
      checkTimezone(input.timezone);
      const row = await write(() =>
        q.insertTenant(db, {
          id: newId(),
          name: input.name,
          slug: input.slug,
          email: input.email?.toLowerCase() ?? null,
          primaryColor: input.primaryColor ?? null,
          plan: input.plan ?? 'free',
          businessType: input.businessType ?? 'restaurant',
          timezone: input.timezone ?? undefined,
        }),
      );
      resolver.forget(row.slug);
      return toTenantView(row);
    },

    async update(id: string, input: UpdateTenantInput): Promise<TenantView> {
      checkTimezone(input.timezone);
      const before = await q.findTenant(db, id);
      if (!before) throw notFound('Tenant');
      const { email, ...rest } = input;
      const row = await write(() =>
        q.updateTenant(db, id, { ...rest, ...(email !== undefined ? { email: email?.toLowerCase() ?? null } : {}) }),
      );
      if (!row) throw notFound('Tenant');
      resolver.forget(before.slug);
      resolver.forget(row.slug);
      return toTenantView(row);
    },

    async toggle(id: string) {
      const row = await q.toggleTenant(db, id);
      if (!row) throw notFound('Tenant');
      resolver.forget(row.slug);
      return { isActive: row.isActive };
    },

    async getConfig(ctx: TenantCtx): Promise<TenantView> {
      const row = await q.findTenant(db, ctx.tenantId);
      if (!row) throw notFound('Tenant');
      return toTenantView(row);
    },

    async updateConfig(ctx: TenantCtx, input: TenantConfigInput): Promise<TenantView> {
      const { fiscalProviderToken, walletAccessToken, cnpj, cep, email, ...plain } = input;
      let cnpjValue: string | null | undefined = cnpj;
      if (typeof cnpj === 'string') {
        cnpjValue = stripDocument(cnpj);
        if (!isValidCnpj(cnpjValue)) throw invalidField('body.cnpj', 'is not a valid CNPJ (check digits do not match)');
      }
      const row = await q.updateTenant(db, ctx.tenantId, {
        ...plain,
        ...(cnpjValue !== undefined ? { cnpj: cnpjValue } : {}),
        ...(cep !== undefined ? { cep: cep === null ? null : cep.replace('-', '') } : {}),
        ...(email !== undefined ? { email: email?.toLowerCase() ?? null } : {}),
        ...(fiscalProviderToken !== undefined ? { fiscalProviderTokenEnc: seal(fiscalProviderToken) } : {}),
        ...(walletAccessToken !== undefined ? { walletAccessTokenEnc: seal(walletAccessToken) } : {}),
      });
      if (!row) throw notFound('Tenant');
      resolver.forget(row.slug);
      return toTenantView(row);
    },

    /** A decrypted tenant secret, for the modules that call the providers. */
    async secret(tenantId: string, name: TenantSecret): Promise<string | null> {
      const row = await q.findTenant(db, tenantId);
      const stored = name === 'fiscalProviderToken' ? row?.fiscalProviderTokenEnc : row?.walletAccessTokenEnc;
      return stored ? decryptSecret(config.encryptionKey, stored) : null;
    },

    findBySlug: (slug: string) => q.findTenantBySlug(db, slug),
    findById: (id: string) => q.findTenant(db, id),
  };
}

export type TenantsService = ReturnType<typeof tenantsService>;
