import { Type, type Static } from '@sinclair/typebox';
import { BUSINESS_TYPES } from '../tenants/index.js';
import { Id, Nullable, StringEnum } from '../../platform/schemas.js';

/** How long browsers and proxies may keep the storefront: it changes only when the admin edits the tenant. */
export const STOREFRONT_CACHE_CONTROL = 'public, max-age=30';

const TableNumber = Type.Integer({ minimum: 1, maximum: 9999, description: 'table number' });

export const StorefrontQuery = Type.Object({
  pdv: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9-]+$', description: 'PDV slug or id' })),
  table: Type.Optional(TableNumber),
});

export const Storefront = Type.Object(
  {
    tenant: Type.Object({
      slug: Type.String(),
      name: Type.String(),
      primaryColor: Nullable(Type.String()),
      businessType: StringEnum(BUSINESS_TYPES),
      kitchenEnabled: Type.Boolean({ description: 'the kitchen display exists: restaurants only' }),
      timezone: Type.String({ description: 'IANA time zone' }),
    }),
    pdv: Nullable(Type.Object({ id: Type.String(), slug: Type.String(), name: Type.String() }), { description: 'null without the pdv query' }),
    table: Nullable(Type.Object({ id: Type.String(), number: Type.Integer() }), {
      description: 'the live table with that number; null without the table query, when there is none, or for a business without tables',
    }),
    walletPublicKey: Nullable(Type.String(), { description: 'public key of the wallet checkout SDK; null when not configured' }),
    walletTokenUrl: Nullable(Type.String(), {
      description:
        'where the browser makes the single-use card token for `POST /checkout/wallet-payment` (`POST <url>?public_key=<walletPublicKey>`, ' +
        'straight to the wallet gateway: card data never reaches this service); a same-origin path with the in-process simulator; null when walletPublicKey is null',
    }),
    serviceChargePercent: Nullable(Type.Number(), { description: "the dine-in service charge (the PDV's, else the tenant's); null when none" }),
  },
  { $id: 'Storefront' },
);

export const TableQrParams = Type.Object({ slug: Type.String({ maxLength: 64 }), pdvId: Id });

export const TABLE_QR_FORMATS = ['html', 'png'] as const;
export const TableQrQuery = Type.Object({
  format: Type.Optional(StringEnum(TABLE_QR_FORMATS, { description: 'html (default): printable A4 page of every table; png: one table (needs table)' })),
  table: Type.Optional(TableNumber),
});

const binary = { schema: { type: 'string', format: 'binary' } };
/** The printable page or one QR image, sent as is (never serialized); errors stay JSON. */
export const TableQrFile = Type.Unsafe<string | Buffer>({
  description: 'text/html: the printable page (A4, two columns of cards); image/png: the QR code of one table (512 px)',
  content: { 'text/html': { schema: { type: 'string' } }, 'image/png': binary },
});

export type StorefrontView = Static<typeof Storefront>;
export type StorefrontInput = Static<typeof StorefrontQuery>;
export type TableQrInput = Static<typeof TableQrQuery>;
