import { newId } from '../../db/ids.js';
import type { Db } from '../../db/client.js';
import type { pdvs } from '../../db/schema/branches.js';
import type { BranchScope } from '../../platform/auth/guards.js';
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
  };
}

/**
 * Branches and points of sale. Their HTTP routes come with the branches issue; orders need the
 * records now (an order names the PDV it came from, a card terminal hangs off a PDV).
 */
export function branchesService({ db }: Deps) {
  return {
    async createBranch(tenantId: string, input: { name: string; slug: string; isHQ?: boolean; city?: string; state?: string }) {
      return q.insertBranch(db, { tenantId, id: newId(), ...input });
    },
    async createPdv(
      tenantId: string,
      input: { branchId: string; name: string; slug: string; serviceMode?: string; gatewayATerminalSerial?: string | null },
    ) {
      return q.insertPdv(db, { tenantId, id: newId(), ...input });
    },
    /** An active or inactive PDV of the tenant, by id or slug; null when unknown. */
    async findPdv(tenantId: string, idOrSlug: string, exec: Db = db): Promise<(PdvView & { active: boolean }) | null> {
      const row = await q.findPdv(exec, tenantId, idOrSlug);
      return row ? toPdvView(row) : null;
    },
    /** Every PDV of the tenant, active or not, by slug. */
    async listPdvs(tenantId: string): Promise<PdvView[]> {
      return (await q.listPdvs(db, tenantId)).map(toPdvView);
    },
    /**
     * The PDVs a scoped user may act on: staff their assigned PDVs, a branch manager every PDV of
     * their branches. Null means no restriction.
     */
    /** Throws `Invalid` naming the field when an assignment names a PDV or branch this tenant does not have. */
    async checkAssignments(tenantId: string, input: { assignedPdvIds?: string[]; assignedBranchIds?: string[] }) {
      for (const [field, ids, existing] of [
        ['assignedPdvIds', input.assignedPdvIds ?? [], q.existingPdvIds] as const,
        ['assignedBranchIds', input.assignedBranchIds ?? [], q.existingBranchIds] as const,
      ]) {
        const found = new Set(await existing(db, tenantId, ids));
        const missing = ids.find((id) => !found.has(id));
        if (missing) throw new Invalid(field, `unknown ${field === 'assignedPdvIds' ? 'PDV' : 'branch'} ${missing}`);
      }
    },

    async pdvScope(tenantId: string, scope: BranchScope): Promise<string[] | null> {
      if (scope.all) return null;
      const ofBranches = await q.pdvIdsOfBranches(db, tenantId, scope.branchIds);
      return [...new Set([...scope.pdvIds, ...ofBranches])];
    },
  };
}

export type BranchesService = ReturnType<typeof branchesService>;
