import { newId } from '../../db/ids.js';
import type { pdvs } from '../../db/schema/branches.js';
import type { TenantDb } from '../../db/scopes.js';
import type { BranchScope } from '../../platform/auth/guards.js';
import { parsePixKey } from '../../platform/pix/pix-key.js';
import type { Deps } from '../../platform/deps.js';
import { Invalid } from '../../platform/domain-errors.js';
import * as q from './branches.queries.js';

export interface PdvView {
  _id: string;
  name: string;
  slug: string;
  serviceMode: string;
  active: boolean;
  branch: string;
  gatewayATerminalSerial: string | null;
  /** Its own PIX key, instead of the tenant's; null to use the tenant's. */
  pixKey: string | null;
  /** Its own service charge in basis points (1000 = 10%); null to use the tenant's. */
  serviceChargeBp: number | null;
  /** Its own cover charge per person in cents; null to use the tenant's. */
  coverCharge: number | null;
}

function toPdvView(row: typeof pdvs.$inferSelect): PdvView {
  return {
    _id: row.id,
    name: row.name,
    slug: row.slug,
    serviceMode: row.serviceMode,
    active: row.active,
    branch: row.branchId,
    gatewayATerminalSerial: row.gatewayATerminalSerial,
    pixKey: row.pixKey,
    serviceChargeBp: row.serviceChargeBp,
    coverCharge: row.coverCharge,
  };
}

/**
 * Branches and points of sale. Their HTTP routes come with the branches issue; orders need the
 * records now (an order names the PDV it came from, a card terminal hangs off a PDV). Every method
 * takes the tenant's handle; given a caller's `TenantTx`, it runs in the caller's transaction.
 */
export function branchesService(_deps: Deps) {
  return {
    createBranch: (t: TenantDb, input: { name: string; slug: string; isHQ?: boolean; city?: string; state?: string }) =>
      t.run((tx) => q.insertBranch(tx.db, { tenantId: tx.tenantId, id: newId(), ...input })),

    createPdv: (
      t: TenantDb,
      input: {
        branchId: string;
        name: string;
        slug: string;
        serviceMode?: string;
        gatewayATerminalSerial?: string | null;
        pixKey?: string | null;
        /** Basis points, 0..3000 (30%); null or absent: the tenant's. */
        serviceChargeBp?: number | null;
        /** Cents per person, 0..100000; null or absent: the tenant's. */
        coverCharge?: number | null;
      },
    ) => {
      const pixKey = input.pixKey ? parsePixKey(input.pixKey)?.key : input.pixKey;
      if (input.pixKey && !pixKey) throw new Invalid('pixKey', 'is not a PIX key');
      const { serviceChargeBp, coverCharge } = input;
      if (serviceChargeBp != null && !(Number.isInteger(serviceChargeBp) && serviceChargeBp >= 0 && serviceChargeBp <= 3000)) {
        throw new Invalid('serviceChargeBp', 'must be an integer number of basis points from 0 to 3000 (30%)');
      }
      if (coverCharge != null && !(Number.isInteger(coverCharge) && coverCharge >= 0 && coverCharge <= 100_000)) {
        throw new Invalid('coverCharge', 'must be an integer number of cents from 0 to 100000');
      }
      return t.run((tx) => q.insertPdv(tx.db, { tenantId: tx.tenantId, id: newId(), ...input, pixKey }));
    },

    /** An active or inactive PDV of the tenant, by id or slug; null when unknown. */
    findPdv: (t: TenantDb, idOrSlug: string): Promise<(PdvView & { active: boolean }) | null> =>
      t.run(async (tx) => {
        const row = await q.findPdv(tx.db, tx.tenantId, idOrSlug);
        return row ? toPdvView(row) : null;
      }),

    /** The tenant's active PDV holding the card terminal `serial`, or null (a terminal serial of another tenant is unknown here). */
    findPdvByTerminal: (t: TenantDb, serial: string): Promise<PdvView | null> =>
      t.run(async (tx) => {
        const row = await q.findPdvByTerminal(tx.db, tx.tenantId, serial);
        return row ? toPdvView(row) : null;
      }),

    /** Every PDV of the tenant, active or not, by slug. */
    listPdvs: (t: TenantDb): Promise<PdvView[]> => t.run(async (tx) => (await q.listPdvs(tx.db, tx.tenantId)).map(toPdvView)),

    /** Throws `Invalid` naming the field when an assignment names a PDV or branch this tenant does not have. */
    checkAssignments: (t: TenantDb, input: { assignedPdvIds?: string[]; assignedBranchIds?: string[] }) =>
      t.run(async (tx) => {
        for (const [field, ids, existing] of [
          ['assignedPdvIds', input.assignedPdvIds ?? [], q.existingPdvIds] as const,
          ['assignedBranchIds', input.assignedBranchIds ?? [], q.existingBranchIds] as const,
        ]) {
          const found = new Set(await existing(tx.db, tx.tenantId, ids));
          const missing = ids.find((id) => !found.has(id));
          if (missing) throw new Invalid(field, `unknown ${field === 'assignedPdvIds' ? 'PDV' : 'branch'} ${missing}`);
        }
      }),

    /**
     * The PDVs a scoped user may act on: staff their assigned PDVs, a branch manager every PDV of
     * their branches. Null means no restriction.
     */
    async pdvScope(t: TenantDb, scope: BranchScope): Promise<string[] | null> {
      if (scope.all) return null;
      const ofBranches = await t.run((tx) => q.pdvIdsOfBranches(tx.db, tx.tenantId, scope.branchIds));
      return [...new Set([...scope.pdvIds, ...ofBranches])];
    },
  };
}

export type BranchesService = ReturnType<typeof branchesService>;
