import { newId } from '../../db/ids.js';
import type { Deps } from '../../platform/deps.js';
import { DEFAULT_ACCOUNTS } from './chart.defaults.js';
import * as cq from './chart.queries.js';

/**
 * Loads the default restaurant chart into the SYSTEM chart (the bypass `system-chart-seed`): the codes
 * already there are left alone, so a second run adds nothing.
 */
export function seedChart(deps: Deps): Promise<{ created: number; existing: number; total: number }> {
  return deps.bypass('system-chart-seed', async (db) => {
    let created = 0;
    const ids = new Map<string, string>();
    const now = deps.clock.now();
    for (const a of DEFAULT_ACCOUNTS) {
      const added = await cq.insertSystemAccountIfMissing(db, {
        id: newId(),
        code: a.code,
        name: a.name,
        nature: a.nature,
        type: a.type,
        normalBalance: a.normalBalance,
        parentId: a.parent ? ids.get(a.parent)! : null,
        dreGroup: a.dreGroup,
        active: true,
        createdAt: now,
        updatedAt: now,
      });
      if (added) created++;
      ids.set(a.code, (await cq.findSystemAccountByCode(db, a.code))!.id);
    }
    return { created, existing: DEFAULT_ACCOUNTS.length - created, total: DEFAULT_ACCOUNTS.length };
  });
}
