import { newId } from '../../db/ids.js';
import type { CostCenterRow } from '../../db/schema/dre.js';
import type { TenantDb } from '../../db/scopes.js';
import { Conflict, isUniqueViolation, NotFound } from '../../platform/domain-errors.js';
import * as q from './dre.queries.js';
import type { CostCenterDeletedView, CostCenterView, CreateCostCenterInput } from './dre.schemas.js';
import type { DreParts } from './dre.service.js';

export const toCostCenterView = (row: CostCenterRow): CostCenterView => ({ _id: row.id, code: row.code, name: row.name, active: row.active });

/** Cost centers (spec 4.12 `/dre/cost-centers`). */
export function costCentersPart({ deps }: DreParts) {
  return {
    /** Every cost center of the tenant by code, the deactivated ones included (`active: false`). */
    listCostCenters: (t: TenantDb): Promise<CostCenterView[]> => t.run(async (tx) => (await q.listCostCenters(tx.db, tx.tenantId)).map(toCostCenterView)),

    /** A cost center; its code (upper case) unique in the tenant, deactivated ones included (409 cost_center_code_taken). */
    createCostCenter: (t: TenantDb, input: CreateCostCenterInput): Promise<CostCenterView> =>
      t.run(async (tx) => {
        const code = input.code.toUpperCase();
        const now = deps.clock.now();
        try {
          const row = await q.insertCostCenter(tx.db, {
            tenantId: tx.tenantId,
            id: newId(),
            code,
            name: input.name.trim(),
            active: true,
            createdAt: now,
            updatedAt: now,
          });
          return toCostCenterView(row);
        } catch (err) {
          if (isUniqueViolation(err, q.COST_CENTER_CODE_KEY)) throw new Conflict(`The code ${code} is taken by another cost center`, 'cost_center_code_taken');
          throw err;
        }
      }),

    /**
     * Deletes a cost center. One that expenses name is not removed (their history and the DRE filter keep
     * it): it becomes `active: false` and takes no new expense; the answer says so (`deactivated: true`).
     */
    deleteCostCenter: (t: TenantDb, id: string): Promise<CostCenterDeletedView> =>
      t.run(async (tx) => {
        const row = await q.findCostCenter(tx.db, tx.tenantId, id, 'update');
        if (!row) throw new NotFound('Cost center');
        if ((await q.countExpenses(tx.db, tx.tenantId, { costCenterId: id })) > 0) {
          if (row.active) await q.deactivateCostCenter(tx.db, tx.tenantId, id, deps.clock.now());
          return { deleted: true as const, deactivated: true };
        }
        await q.deleteCostCenter(tx.db, tx.tenantId, id);
        return { deleted: true as const, deactivated: false };
      }),
  };
}
