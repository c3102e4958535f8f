import { newId } from '../../db/ids.js';
import type { TenantRow } from '../../db/schema/tenants.js';
import type { TenantCtx } from '../../platform/auth/guards.js';
import { isValidCnpj, stripDocument } from '../../platform/br-documents.js';
import { decryptSecret, encryptSecret } from '../../platform/crypto.js';
import type { Deps } from '../../platform/deps.js';
import { Conflict, Invalid, isUniqueViolation, NotFound } from '../../platform/domain-errors.js';
import { pageWindow } from '../../platform/pagination.js';
import { parsePixKey } from '../../platform/pix/pix-key.js';
import { isTimeZone } from '../../platform/time.js';
import type { AuditService } from '../audit/index.js';
import * as q from './tenants.queries.js';
import type { TenantPatch } from './tenants.queries.js';
import {
  TENANTS_PAGE,
  CRT_CODES,
  TenantConfigBody,
  type CreateTenantInput,
  type Regime,
  type TenantConfigInput,
  type TenantView,
  type UpdateTenantInput,
} from './tenants.schemas.js';

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
    pixKey: t.pixKey,
    serviceChargePercent: t.serviceChargeBp / 100,
    coverCharge: t.coverCharge,
    discountLimitPercent: t.discountLimitBp / 100,
    requireShift: t.requireShift,
  };
}

/** A percentage with at most 2 decimals as basis points (12.5 -> 1250); `Invalid` naming the field otherwise. */
function toBasisPoints(field: string, percent: number | undefined): number | undefined {
  if (percent === undefined) return undefined;
  const bp = Math.round(percent * 100);
  // Tolerance for binary floats (0.07 * 100 = 7.000000000000001); 12.345 or 12.001 are off by far more.
  if (Math.abs(percent * 100 - bp) > 1e-6) throw new Invalid(field, 'must have at most 2 decimals');
  return bp;
}

const slugTaken = () => new Conflict('A tenant with this slug already exists', 'slug_taken');

function checkTimezone(tz: string | undefined) {
  if (tz !== undefined && !isTimeZone(tz)) throw new Invalid('timezone', 'is not an IANA time zone');
}

export type TenantSecret = 'fiscalProviderToken' | 'walletAccessToken';

/** The fields a tenant admin may set (the keys of the config body): anything else is never written. */
const CONFIG_FIELDS = new Set(Object.keys(TenantConfigBody.properties));

/** `regimeTributario` as stored: the name, also when given as an NF-e CRT code. */
export function normalizeRegime(value: string): Regime {
  return value in CRT_CODES ? CRT_CODES[value as keyof typeof CRT_CODES] : (value as Regime);
}

/** The tenant fields that are secrets: a change is audited by name, never by value. */
const SECRET_FIELDS = ['fiscalProviderToken', 'walletAccessToken'] as const;

export function tenantsService({ db, config, tenants: resolver, tenantDb }: Deps, audit: AuditService) {
  const seal = (value: string | null | undefined) =>
    value === undefined ? undefined : value === null ? null : encryptSecret(config.encryptionKey, value);

  /**
   * The row patch of a validated update, shared by the superadmin and the tenant configuration routes:
   * CNPJ check digits and stripped formatting, CEP as 8 digits, e-mail lower-cased, CRT codes as names,
   * secrets encrypted. Fields absent from the input are left alone; null clears.
   */
  function toPatch(input: UpdateTenantInput): TenantPatch {
    const { fiscalProviderToken, walletAccessToken, cnpj, cep, email, regimeTributario, pixKey, serviceChargePercent, discountLimitPercent, ...plain } =
      input;
    const serviceChargeBp = toBasisPoints('serviceChargePercent', serviceChargePercent);
    const discountLimitBp = toBasisPoints('discountLimitPercent', discountLimitPercent);
    let pixValue: string | null | undefined = pixKey;
    if (typeof pixKey === 'string') {
      const parsed = parsePixKey(pixKey);
      if (!parsed) throw new Invalid('pixKey', 'is not a PIX key: a CPF or CNPJ with valid check digits, an e-mail, a mobile phone with +55 or (DD), or a random key');
      pixValue = parsed.key;
    }
    let cnpjValue: string | null | undefined = cnpj;
    if (typeof cnpj === 'string') {
      cnpjValue = stripDocument(cnpj);
      if (!isValidCnpj(cnpjValue)) throw new Invalid('cnpj', 'is not a valid CNPJ (check digits do not match)');
    }
    return {
      ...plain,
      ...(cnpjValue !== undefined ? { cnpj: cnpjValue } : {}),
      ...(pixValue !== undefined ? { pixKey: pixValue } : {}),
      ...(serviceChargeBp !== undefined ? { serviceChargeBp } : {}),
      ...(discountLimitBp !== undefined ? { discountLimitBp } : {}),
      ...(cep !== undefined ? { cep: cep === null ? null : cep.replace('-', '') } : {}),
      ...(email !== undefined ? { email: email?.toLowerCase() ?? null } : {}),
      ...(regimeTributario !== undefined ? { regimeTributario: regimeTributario === null ? null : normalizeRegime(regimeTributario) } : {}),
      ...(fiscalProviderToken !== undefined ? { fiscalProviderTokenEnc: seal(fiscalProviderToken) } : {}),
      ...(walletAccessToken !== undefined ? { walletAccessTokenEnc: seal(walletAccessToken) } : {}),
    };
  }

  /**
   * Writes a patch. When it sets or clears a secret, in the tenant's transaction together with its audit
   * event (the names of the fields, never their values); the tenants table is shared, so reachable there.
   */
  function updateRow(tenantId: string, input: UpdateTenantInput, actor: { id: string; email: string } | null) {
    const patch = toPatch(input);
    const secrets = SECRET_FIELDS.filter((k) => input[k] !== undefined);
    if (!secrets.length) return q.updateTenant(db, tenantId, patch);
    return tenantDb(tenantId).run(async (tx) => {
      const row = await q.updateTenant(tx.db, tenantId, patch);
      if (row) {
        const details = { fields: secrets, cleared: secrets.filter((k) => input[k] === null) };
        await audit.record(tx, { action: 'tenant.secrets_changed', actorId: actor?.id ?? null, actorLabel: actor?.email ?? null, targetType: 'tenant', targetId: tenantId, details });
      }
      return row;
    });
  }

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

    /** One page (TENANTS_PAGE) of the tenants, oldest first, and their number (the superadmin's list). */
    async listPage(query: { page?: number; limit?: number } = {}) {
      const { rows, total } = await q.listTenantsPage(db, pageWindow(query, TENANTS_PAGE));
      return { tenants: rows.map(toTenantView), total };
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

    async update(id: string, input: UpdateTenantInput, actor: { id: string; email: string } | null = null): Promise<TenantView> {
      checkTimezone(input.timezone);
      const before = await q.findTenant(db, id);
      if (!before) throw new NotFound('Tenant');
      const row = await write(() => updateRow(id, input, actor));
      if (!row) throw new NotFound('Tenant');
      resolver.forget(before.slug);
      resolver.forget(row.slug);
      return toTenantView(row);
    },

    async toggle(id: string) {
      const row = await q.toggleTenant(db, id);
      if (!row) throw new NotFound('Tenant');
      resolver.forget(row.slug);
      return { isActive: row.isActive };
    },

    async getConfig(ctx: TenantCtx): Promise<TenantView> {
      const row = await q.findTenant(db, ctx.tenantId);
      if (!row) throw new NotFound('Tenant');
      return toTenantView(row);
    },

    async updateConfig(ctx: TenantCtx, input: TenantConfigInput): Promise<TenantView> {
      // Only configuration fields, whatever reaches the service: plan, slug and activation are the superadmin's.
      const config = Object.fromEntries(Object.entries(input).filter(([k]) => CONFIG_FIELDS.has(k))) as TenantConfigInput;
      const row = await updateRow(ctx.tenantId, config, ctx.user);
      if (!row) throw new NotFound('Tenant');
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
    /** Id, slug, name and activation of these tenants, by name (a user's tenants). */
    listByIds: (ids: string[]) => q.tenantRefsByIds(db, ids),
  };
}

export type TenantsService = ReturnType<typeof tenantsService>;
