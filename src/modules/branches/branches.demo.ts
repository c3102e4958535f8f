import type { TenantDb } from '../../db/scopes.js';
import type { BranchesService } from './branches.service.js';

/** Demo points of sale: the HQ with a counter and a table-service PDV that has a card terminal. */
export async function seedDemoBranches(branches: BranchesService, t: TenantDb) {
  const hq = await branches.createBranch(t, { name: 'Matriz Pinheiros', slug: 'matriz', isHQ: true, city: 'São Paulo', state: 'SP' });
  const balcao = await branches.createPdv(t, { branchId: hq.id, name: 'Balcão', slug: 'balcao', serviceMode: 'balcao' });
  const salao = await branches.createPdv(t, {
    branchId: hq.id,
    name: 'Salão',
    slug: 'salao',
    serviceMode: 'mesa',
    gatewayATerminalSerial: 'T-DEMO0001',
  });
  return { branchId: hq.id, pdvIds: [balcao.id, salao.id] };
}
