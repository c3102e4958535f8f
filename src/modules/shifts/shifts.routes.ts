import { Type } from '@sinclair/typebox';
import { ctxOf } from '../../platform/auth/guards.js';
import type { RouteApp } from '../../platform/http.js';
import { withErrors } from '../../platform/schemas.js';
import {
  ActiveShift,
  BranchParams,
  CashMovement,
  CloseShiftBody,
  ListShiftsQuery,
  MovementBody,
  OpenShiftBody,
  PdvWithShift,
  Shift,
  ShiftPage,
  ShiftParams,
  ShiftReport,
} from './shifts.schemas.js';
import type { ShiftsService } from './shifts.service.js';

const BASE = '/api/t/:slug/admin/branches/:id';

/**
 * Who works the cash: admins, branch managers and staff (superadmins pass every rule). The branch scope
 * is the service's: the guard's `branchParam` knows assigned branches only, and staff are assigned PDVs
 * (a branch manager outside the branch gets 403 as from the guard; staff see their PDVs of the branch).
 */
const cashRoles = { roles: ['admin', 'branch_manager', 'staff'] } as const;

export function shiftsRoutes(app: RouteApp, { shifts }: { shifts: ShiftsService }) {
  app.get(`${BASE}/pdvs`, {
    schema: {
      tags: ['shifts'],
      summary: "The branch's points of sale, each with the shift open at it (staff: their assigned ones)",
      params: BranchParams,
      response: withErrors({ 200: Type.Array(PdvWithShift) }),
    },
    config: { auth: cashRoles },
    handler: (req) => shifts.pdvs(ctxOf(req), req.params.id),
  });

  app.get(`${BASE}/shifts/active`, {
    schema: {
      tags: ['shifts'],
      summary: "The open shifts of the branch's points of sale, oldest first",
      params: BranchParams,
      response: withErrors({ 200: Type.Array(ActiveShift) }),
    },
    config: { auth: cashRoles },
    handler: (req) => shifts.active(ctxOf(req), req.params.id),
  });

  app.post(`${BASE}/shifts/open`, {
    schema: {
      tags: ['shifts'],
      summary: 'Open a shift at a point of sale of the branch (one open shift per point of sale: 409 shift_open)',
      params: BranchParams,
      body: OpenShiftBody,
      response: withErrors({ 201: Shift }, [400, 401, 403, 404, 409]),
    },
    config: { auth: cashRoles },
    handler: async (req, reply) => reply.code(201).send(await shifts.open(ctxOf(req), req.params.id, req.body)),
  });

  app.get(`${BASE}/shifts`, {
    schema: {
      tags: ['shifts'],
      summary: "The branch's shifts, newest first",
      params: BranchParams,
      querystring: ListShiftsQuery,
      response: withErrors({ 200: ShiftPage }),
    },
    config: { auth: cashRoles },
    handler: (req) => shifts.list(ctxOf(req), req.params.id, req.query),
  });

  app.get(`${BASE}/shifts/:shiftId`, {
    schema: {
      tags: ['shifts'],
      summary: 'A shift with its cash movements and, once closed, its closing report',
      params: ShiftParams,
      response: withErrors({ 200: ShiftReport }),
    },
    config: { auth: cashRoles },
    handler: (req) => shifts.get(ctxOf(req), req.params.id, req.params.shiftId),
  });

  app.post(`${BASE}/shifts/:shiftId/movements`, {
    schema: {
      tags: ['shifts'],
      summary: 'Take cash out of the drawer (withdrawal, "sangria") or put it in (addition, "suprimento") during an open shift',
      params: ShiftParams,
      body: MovementBody,
      response: withErrors({ 201: CashMovement }, [400, 401, 403, 404, 409]),
    },
    config: { auth: cashRoles },
    handler: async (req, reply) => reply.code(201).send(await shifts.addMovement(ctxOf(req), req.params.id, req.params.shiftId, req.body)),
  });

  app.post(`${BASE}/shifts/:shiftId/close`, {
    schema: {
      tags: ['shifts'],
      summary: 'Close a shift: what was counted per method against what was expected; the closing report',
      params: ShiftParams,
      body: CloseShiftBody,
      response: withErrors({ 200: ShiftReport }, [400, 401, 403, 404, 409]),
    },
    config: { auth: cashRoles },
    handler: (req) => shifts.close(ctxOf(req), req.params.id, req.params.shiftId, req.body),
  });
}
