import { bigint, boolean, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, id, updatedAt } from './columns.js';

export const tenants = pgTable(
  'tenants',
  {
    id: id('id').primaryKey(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    email: text('email'),
    primaryColor: text('primary_color'),
    plan: text('plan', { enum: ['free', 'basic', 'premium'] }).notNull().default('free'),
    isActive: boolean('is_active').notNull().default(true),
    businessType: text('business_type', { enum: ['restaurant', 'mercado', 'padaria'] }).notNull().default('restaurant'),
    timezone: text('timezone').notNull().default('America/Sao_Paulo'),
    cnpj: text('cnpj'),
    inscricaoEstadual: text('inscricao_estadual'),
    fiscalProviderTokenEnc: text('fiscal_provider_token_enc'),
    fiscalProviderAmbiente: text('fiscal_provider_ambiente'),
    regimeTributario: text('regime_tributario'),
    address: text('address'),
    addressNumber: text('address_number'),
    district: text('district'),
    city: text('city'),
    state: text('state'),
    cep: text('cep'),
    walletAccessTokenEnc: text('wallet_access_token_enc'),
    walletDeviceId: text('wallet_device_id'),
    walletPublicKey: text('wallet_public_key'),
    /** The restaurant's PIX key, as the DICT stores it (src/platform/pix/pix-key.ts); a PDV may have its own. */
    pixKey: text('pix_key'),
    /** Service charge on dine-in bills, in basis points (1000 = the usual 10%); a PDV may set its own. */
    serviceChargeBp: integer('service_charge_bp').notNull().default(0),
    /** Cover charge per person on dine-in bills, in cents; a PDV may set its own. */
    coverCharge: bigint('cover_charge', { mode: 'number' }).notNull().default(0),
    /** Largest discount staff may give alone, in basis points of what it discounts; above it a manager does. */
    discountLimitBp: integer('discount_limit_bp').notNull().default(1000),
    /** Cash payments need an open shift at their PDV (the drawer is someone's responsibility). */
    requireShift: boolean('require_shift').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('tenants_slug_key').on(t.slug)],
);

export type TenantRow = typeof tenants.$inferSelect;
