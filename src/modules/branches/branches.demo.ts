import type { TenantDb } from '../../db/scopes.js';
import type { BranchesService } from './branches.service.js';

/**
 * Demo branches and points of sale: the HQ with a counter and a table-service PDV that has a card
 * terminal, and a second branch in Vila Madalena (same company: CNPJ root, order 0002) with its own two.
 */
export async function seedDemoBranches(branches: BranchesService, t: TenantDb) {
  const hq = await branches.createBranch(t, {
    name: 'Matriz Pinheiros',
    slug: 'matriz',
    isHQ: true,
    cnpj: '31846259000181',
    address: 'Rua dos Pinheiros, 1200',
    city: 'São Paulo',
    state: 'SP',
    cep: '05422001',
  });
  const balcao = await branches.createPdv(t, { branchId: hq.id, name: 'Balcão', slug: 'balcao', serviceMode: 'balcao' });
  const salao = await branches.createPdv(t, {
    branchId: hq.id,
    name: 'Salão',
    slug: 'salao',
    serviceMode: 'mesa',
    gatewayATerminalSerial: 'T-DEMO0001',
  });
  const vila = await branches.createBranch(t, {
    name: 'Filial Vila Madalena',
    slug: 'vila-madalena',
    cnpj: '31846259000262',
    address: 'Rua Aspicuelta, 300',
    city: 'São Paulo',
    state: 'SP',
    cep: '05433010',
  });
  const vilaBalcao = await branches.createPdv(t, { branchId: vila.id, name: 'Balcão Vila', slug: 'vila-balcao', serviceMode: 'balcao' });
  const vilaVaranda = await branches.createPdv(t, {
    branchId: vila.id,
    name: 'Varanda',
    slug: 'vila-varanda',
    serviceMode: 'mesa',
    gatewayATerminalSerial: 'T-DEMO0002',
  });
  return { branchIds: [hq.id, vila.id], pdvIds: [balcao.id, salao.id, vilaBalcao.id, vilaVaranda.id] };
}
