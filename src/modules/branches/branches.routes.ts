import { Type } from '@sinclair/typebox';
import { ctxOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { NoContent, TenantParams, withErrors } from '../../platform/schemas.js';
import {
  Branch,
  BranchPage,
  BranchParams,
  CreateBranchBody,
  CreatePdvBody,
  ListBranchesQuery,
  Pdv,
  PdvParams,
  UpdateBranchBody,
  UpdatePdvBody,
  WorkedPdv,
} from './branches.schemas.js';
import type { BranchesService } from './branches.service.js';

const BASE = '/api/t/:slug/admin/branches';
/** Creating and deleting branches is the admin's (superadmin passes every rule). */
const adminOnly = { roles: ['admin'] } as const;
/** Reading and changing one branch, and its points of sale: the admin, and the branch's own managers. */
const branchRoles = { roles: ['admin', 'branch_manager'], branchParam: 'id' } as const;

/** Spec 4.10 (the branch records) and the management of a branch's points of sale. */
export function branchesRoutes(app: RouteApp, { branches }: { branches: BranchesService }) {
  app.get('/t/:slug/pdvs', {
    schema: {
      tags: ['branches'],
      summary: "The PDVs the caller works, with their branch's name (admin: all; branch manager: their branches'; staff: assigned)",
      description: 'For the floor and the cashier: staff and branch managers cannot list the branches, but need their PDVs and branch ids.',
      params: TenantParams,
      response: withErrors({ 200: Type.Array(WorkedPdv) }, [401, 403, 404]),
    },
    config: { auth: { roles: ['admin', 'branch_manager', 'staff'] } },
    handler: (req) => branches.workedPdvs(ctxOf(req).db, ctxOf(req).branchScope),
  });

  app.get(BASE, {
    schema: {
      tags: ['branches'],
      summary: 'Branches of the tenant, a page at a time (HQ first, then by name); a branch manager sees only theirs',
      params: TenantParams,
      querystring: ListBranchesQuery,
      response: withErrors({ 200: BranchPage }),
    },
    config: { auth: { roles: ['admin', 'branch_manager'] } },
    handler: (req) => branches.list(ctxOf(req).db, ctxOf(req).branchScope, req.query),
  });

  app.post(BASE, {
    schema: {
      tags: ['branches'],
      summary: 'Create a branch (the first is the headquarters; isHQ moves it; 409 when the slug exists)',
      params: TenantParams,
      body: CreateBranchBody,
      response: withErrors({ 201: Branch }, [400, 401, 403, 404, 409]),
    },
    config: { auth: adminOnly },
    handler: async (req, reply) => reply.code(201).send(await branches.create(ctxOf(req).db, req.body)),
  });

  app.get(`${BASE}/:id`, {
    schema: { tags: ['branches'], summary: 'A branch', params: BranchParams, response: withErrors({ 200: Branch }) },
    config: { auth: branchRoles },
    handler: (req) => branches.get(ctxOf(req).db, req.params.id),
  });

  app.put(`${BASE}/:id`, {
    schema: {
      tags: ['branches'],
      summary: 'Update a branch: any subset of its fields, active, or isHQ (moves the headquarters here)',
      params: BranchParams,
      body: UpdateBranchBody,
      response: withErrors({ 200: Branch }, [400, 401, 403, 404, 409]),
    },
    config: { auth: branchRoles },
    handler: (req) => branches.update(ctxOf(req).db, ctxOf(req).branchScope, req.params.id, req.body),
  });

  app.delete(`${BASE}/:id`, {
    schema: {
      tags: ['branches'],
      summary: 'Delete a branch (409 while it has points of sale, or for the headquarters while other branches exist)',
      params: BranchParams,
      response: withErrors({ 204: NoContent }, [400, 401, 403, 404, 409]),
    },
    config: { auth: adminOnly },
    handler: async (req, reply) => {
      await branches.remove(ctxOf(req).db, req.params.id);
      return reply.code(204).send();
    },
  });

  app.post(`${BASE}/:id/pdvs`, {
    schema: {
      tags: ['branches'],
      summary: 'Create a point of sale in the branch (409 when the slug or the card terminal is taken)',
      params: BranchParams,
      body: CreatePdvBody,
      response: withErrors({ 201: Pdv }, [400, 401, 403, 404, 409]),
    },
    config: { auth: branchRoles },
    handler: async (req, reply) => reply.code(201).send(await branches.addPdv(ctxOf(req).db, req.params.id, req.body)),
  });

  app.put(`${BASE}/:id/pdvs/:pdvId`, {
    schema: {
      tags: ['branches'],
      summary: 'Update a point of sale of the branch: any subset of its fields; active false deactivates it',
      params: PdvParams,
      body: UpdatePdvBody,
      response: withErrors({ 200: Pdv }, [400, 401, 403, 404, 409]),
    },
    config: { auth: branchRoles },
    handler: (req) => branches.updatePdv(ctxOf(req).db, req.params.id, req.params.pdvId, req.body),
  });
}
