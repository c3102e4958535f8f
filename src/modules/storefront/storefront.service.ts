import QRCode from 'qrcode';
import type { WalletIntegration } from '../../integrations/wallet/index.js';
import type { TenantCtx } from '../../platform/auth/guards.js';
import type { Deps } from '../../platform/deps.js';
import { Forbidden, Invalid, NotFound } from '../../platform/domain-errors.js';
import type { TenantRef } from '../../platform/tenancy.js';
import type { BranchesService } from '../branches/index.js';
import type { TablesService } from '../tables/index.js';
import type { TenantsService } from '../tenants/index.js';
import type { StorefrontInput, StorefrontView, TableQrInput } from './storefront.schemas.js';
import { tableQrPage } from './table-qr.page.js';

export interface StorefrontNeeds {
  tenants: Pick<TenantsService, 'findById'>;
  branches: Pick<BranchesService, 'findPdv' | 'pdvScope'>;
  tables: Pick<TablesService, 'list' | 'findByNumber'>;
  /** The wallet gateway, for where the browser tokenizes cards. */
  wallet: Pick<WalletIntegration, 'tokenizationUrl'>;
}

/** What the table QR route sends: the printable page or one table's PNG. */
export type TableQrFileOut = { type: 'text/html; charset=utf-8'; body: string } | { type: 'image/png'; body: Buffer };

const QR_OPTIONS = { errorCorrectionLevel: 'M', margin: 1 } as const;

/**
 * The public storefront (what the customer menu and the kitchen pages need to start: the tenant's
 * public face, the PDV and table they were opened for) and the printable table QR codes.
 */
export function storefrontService({ config }: Deps, { tenants, branches, tables, wallet }: StorefrontNeeds) {
  const base = () => config.publicUrl.replace(/\/+$/, '');
  /** Where a table's QR code leads: the customer menu of that PDV, with the table preselected. */
  const tableUrl = (slug: string, pdvSlug: string, number: number) =>
    `${base()}/t/${encodeURIComponent(slug)}/b/${encodeURIComponent(pdvSlug)}/menu?table=${number}`;

  return {
    async storefront(tenant: TenantRef, input: StorefrontInput): Promise<StorefrontView> {
      // The tenant row is a shared table: read before the tenant's transaction.
      const row = await tenants.findById(tenant.id);
      if (!row) throw new NotFound('Tenant');
      const restaurant = tenant.businessType === 'restaurant';
      const { pdv, table } = await tenant.db.run(async (tx) => {
        const found = input.pdv !== undefined ? await branches.findPdv(tx, input.pdv) : null;
        if (input.pdv !== undefined && (!found || !found.active)) throw new NotFound('Point of sale');
        const live = input.table !== undefined && restaurant ? await tables.findByNumber(tx, input.table) : null;
        return { pdv: found, table: live };
      });
      const serviceChargeBp = pdv?.serviceChargeBp ?? row.serviceChargeBp;
      return {
        tenant: {
          slug: row.slug,
          name: row.name,
          primaryColor: row.primaryColor,
          businessType: row.businessType,
          kitchenEnabled: restaurant,
          timezone: row.timezone,
        },
        pdv: pdv ? { id: pdv._id, slug: pdv.slug, name: pdv.name } : null,
        table: table ? { id: table._id, number: table.number } : null,
        walletPublicKey: row.walletPublicKey,
        walletTokenUrl: row.walletPublicKey ? wallet.tokenizationUrl : null,
        serviceChargePercent: serviceChargeBp > 0 ? serviceChargeBp / 100 : null,
      };
    },

    /**
     * The printable page of QR codes of every live table for a PDV, or one table's PNG. 404 for a PDV
     * the tenant does not have; 403 for a scoped caller (branch manager) outside its branches.
     */
    async tableQr(ctx: TenantCtx, pdvId: string, input: TableQrInput): Promise<TableQrFileOut> {
      const format = input.format ?? 'html';
      if (format === 'png' && input.table === undefined) throw new Invalid('table', 'is required when format is png', { in: 'querystring' });
      const { pdv, list } = await ctx.db.run(async (tx) => {
        const found = await branches.findPdv(tx, pdvId);
        if (!found || found._id !== pdvId) throw new NotFound('PDV');
        const scope = await branches.pdvScope(tx, ctx.branchScope);
        if (scope && !scope.includes(found._id)) throw new Forbidden('You have no access to this point of sale', 'branch_scope');
        if (format === 'png') {
          const one = await tables.findByNumber(tx, input.table!);
          if (!one) throw new NotFound('Table');
          return { pdv: found, list: [one] };
        }
        return { pdv: found, list: await tables.list(tx) };
      });
      if (format === 'png') {
        const body = await QRCode.toBuffer(tableUrl(ctx.tenant.slug, pdv.slug, list[0].number), { ...QR_OPTIONS, type: 'png', width: 512 });
        return { type: 'image/png', body };
      }
      const cards = await Promise.all(
        list.map(async (t) => {
          const url = tableUrl(ctx.tenant.slug, pdv.slug, t.number);
          return { number: t.number, url, svg: await QRCode.toString(url, { ...QR_OPTIONS, type: 'svg' }) };
        }),
      );
      return { type: 'text/html; charset=utf-8', body: tableQrPage({ tenantName: ctx.tenant.name, pdvName: pdv.name, cards }) };
    },
  };
}

export type StorefrontService = ReturnType<typeof storefrontService>;
