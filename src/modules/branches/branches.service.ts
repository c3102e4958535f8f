import { newId } from '../../db/ids.js';
import type { BranchRow, PdvRow } from '../../db/schema/branches.js';
import type { TenantDb, TenantTx } from '../../db/scopes.js';
import type { BranchScope } from '../../platform/auth/guards.js';
import { isValidCnpj, stripDocument } from '../../platform/br-documents.js';
import { parsePixKey } from '../../platform/pix/pix-key.js';
import type { Deps } from '../../platform/deps.js';
import { Conflict, Forbidden, Invalid, isUniqueViolation, NotFound } from '../../platform/domain-errors.js';
import * as q from './branches.queries.js';
import type {
  BranchPageView,
  BranchView,
  CreateBranchInput,
  CreatePdvInput,
  ListBranchesInput,
  PdvOut,
  ServiceMode,
  UpdateBranchInput,
  UpdatePdvInput,
} from './branches.schemas.js';

export interface PdvView {
  _id: string;
  name: string;
  slug: string;
  serviceMode: ServiceMode;
  active: boolean;
  branch: string;
  gatewayATerminalSerial: string | null;
  /** Its own PIX key, instead of the tenant's; null to use the tenant's. */
  pixKey: string | null;
  /** Its own service charge in basis points (1000 = 10%); null to use the tenant's. */
  serviceChargeBp: number | null;
  /** The same in percent (10 = 10%), as the routes show it. */
  serviceChargePercent: number | null;
  /** Its own cover charge per person in cents; null to use the tenant's. */
  coverCharge: number | null;
}

function toPdvView(row: PdvRow): PdvView {
  return {
    _id: row.id,
    name: row.name,
    slug: row.slug,
    // Written only through this service, from SERVICE_MODES (the column's default is 'balcao').
    serviceMode: row.serviceMode as ServiceMode,
    active: row.active,
    branch: row.branchId,
    gatewayATerminalSerial: row.gatewayATerminalSerial,
    pixKey: row.pixKey,
    serviceChargeBp: row.serviceChargeBp,
    serviceChargePercent: row.serviceChargeBp === null ? null : row.serviceChargeBp / 100,
    coverCharge: row.coverCharge,
  };
}

/** The PDV as the admin routes answer it (percent, not basis points). */
function toPdvOut(row: PdvRow): PdvOut {
  const { serviceChargeBp: _bp, ...view } = toPdvView(row);
  return view;
}

/** 14 CNPJ characters as `00.000.000/0000-00`. */
function formatCnpj(cnpj: string): string {
  return `${cnpj.slice(0, 2)}.${cnpj.slice(2, 5)}.${cnpj.slice(5, 8)}/${cnpj.slice(8, 12)}-${cnpj.slice(12)}`;
}

function toBranchView(row: BranchRow): BranchView {
  return {
    _id: row.id,
    name: row.name,
    slug: row.slug,
    active: row.active,
    isHQ: row.isHQ,
    cnpj: row.cnpj === null ? null : formatCnpj(row.cnpj),
    address: row.address,
    city: row.city,
    state: row.state,
    cep: row.cep,
    ibsCbsEnabled: row.ibsCbsEnabled,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The CNPJ as stored (the 14 characters, no punctuation), or `Invalid` naming the field (the tenants' check). */
function cnpjOf(value: string): string {
  const cnpj = stripDocument(value);
  if (!isValidCnpj(cnpj)) throw new Invalid('cnpj', 'is not a valid CNPJ (check digits do not match)');
  return cnpj;
}

/** A percentage with at most 2 decimals as basis points (12.5 -> 1250); `Invalid` naming the field otherwise. */
function toBasisPoints(field: string, percent: number): number {
  const bp = Math.round(percent * 100);
  // Tolerance for binary floats (0.07 * 100 = 7.000000000000001); 12.345 or 12.001 are off by far more.
  if (Math.abs(percent * 100 - bp) > 1e-6) throw new Invalid(field, 'must have at most 2 decimals');
  return bp;
}

/** The PIX key as the DICT stores it; null clears; `Invalid` naming the field when it is no key. */
function pixKeyOf(value: string | null | undefined): string | null | undefined {
  if (!value) return value === '' ? null : value;
  const parsed = parsePixKey(value);
  if (!parsed) throw new Invalid('pixKey', 'is not a PIX key: a CPF or CNPJ with valid check digits, an e-mail, a mobile phone with +55 or (DD), or a random key');
  return parsed.key;
}

const branchSlugTaken = () => new Conflict('A branch with this slug already exists', 'slug_taken');
const pdvSlugTaken = () => new Conflict('A point of sale with this slug already exists', 'slug_taken');
const terminalTaken = () => new Conflict('This card terminal is already registered to a point of sale', 'terminal_taken');
const hqRequired = (message: string) => new Conflict(message, 'hq_required');

/** A foreign key violation (pg and PGlite): a PDV arrived in a branch being deleted, or the branch went. */
function isForeignKeyViolation(err: unknown): boolean {
  const e = err as { code?: string; cause?: unknown };
  if (e && e.code === '23503') return true;
  return e?.cause ? isForeignKeyViolation(e.cause) : false;
}

/** The unique violations of PDV writes as the conflicts they are. */
function pdvConflict(err: unknown): unknown {
  if (isUniqueViolation(err, q.PDV_SLUG_KEY)) return pdvSlugTaken();
  if (isUniqueViolation(err, q.PDV_TERMINAL_KEY)) return terminalTaken();
  return err;
}

/** The branch `id` of the tenant, or NotFound (another tenant's looks the same as a missing one). */
async function branchOf(tx: TenantTx, id: string): Promise<BranchRow> {
  const row = await q.findBranch(tx.db, tx.tenantId, id);
  if (!row) throw new NotFound('Branch');
  return row;
}

/** What a PDV row is made of, from either entry (the admin routes take percent, the service callers basis points). */
interface PdvFields {
  name?: string;
  slug?: string;
  serviceMode?: ServiceMode;
  gatewayATerminalSerial?: string | null;
  pixKey?: string | null;
  serviceChargeBp?: number | null;
  coverCharge?: number | null;
  active?: boolean;
}

/** Checks and normalises PDV fields: the PIX key as the DICT stores it, the bill settings in range. */
function pdvRowFields(input: PdvFields): PdvFields {
  const { serviceChargeBp, coverCharge } = input;
  if (serviceChargeBp != null && !(Number.isInteger(serviceChargeBp) && serviceChargeBp >= 0 && serviceChargeBp <= 3000)) {
    throw new Invalid('serviceChargeBp', 'must be an integer number of basis points from 0 to 3000 (30%)');
  }
  if (coverCharge != null && !(Number.isInteger(coverCharge) && coverCharge >= 0 && coverCharge <= 100_000)) {
    throw new Invalid('coverCharge', 'must be an integer number of cents from 0 to 100000');
  }
  const pixKey = pixKeyOf(input.pixKey);
  return { ...input, ...(pixKey !== undefined ? { pixKey } : {}) };
}

/** The admin routes' PDV body in row terms: `serviceChargePercent` as basis points. */
function fromPdvInput(input: CreatePdvInput | UpdatePdvInput): PdvFields {
  const { serviceChargePercent, ...rest } = input;
  if (serviceChargePercent === undefined) return rest;
  return { ...rest, serviceChargeBp: serviceChargePercent === null ? null : toBasisPoints('serviceChargePercent', serviceChargePercent) };
}

/** Branch fields as stored: CNPJ without punctuation (check digits verified), CEP as 8 digits. */
function branchRowFields<T extends { cnpj?: string | null; cep?: string | null }>(input: T): T {
  return {
    ...input,
    ...(typeof input.cnpj === 'string' ? { cnpj: cnpjOf(input.cnpj) } : {}),
    ...(typeof input.cep === 'string' ? { cep: input.cep.replace('-', '') } : {}),
  };
}

interface NewBranch {
  name: string;
  slug: string;
  isHQ?: boolean;
  cnpj?: string | null;
  address?: string | null;
  city?: string | null;
  state?: string | null;
  cep?: string | null;
  ibsCbsEnabled?: boolean;
}

/**
 * Branches and points of sale (spec 2 and 4.10). Every method takes the tenant's handle; given a
 * caller's `TenantTx`, it runs in the caller's transaction.
 *
 * Exactly one branch of a tenant is its headquarters (a unique index says so too): the first one
 * whatever it asks, and any that asks (`isHQ: true`) takes the flag from the current one in the same
 * transaction. Changes that read every branch run under a per-tenant advisory lock.
 */
export function branchesService(_deps: Deps) {
  /** Inserts a branch under the HQ rule; the row. */
  async function insertBranch(tx: TenantTx, input: NewBranch): Promise<BranchRow> {
    const fields = branchRowFields(input);
    await q.lockTenantBranches(tx.db, tx.tenantId);
    const hq = await q.findHq(tx.db, tx.tenantId);
    const isHQ = !hq || input.isHQ === true;
    if (hq && isHQ) await q.clearHq(tx.db, tx.tenantId);
    try {
      return await q.insertBranch(tx.db, { ...fields, tenantId: tx.tenantId, id: newId(), isHQ });
    } catch (err) {
      if (isUniqueViolation(err, q.BRANCH_SLUG_KEY)) throw branchSlugTaken();
      throw err;
    }
  }

  /** Inserts a PDV in a branch of the tenant; the row. */
  async function insertPdv(tx: TenantTx, branchId: string, input: PdvFields & { name: string; slug: string }): Promise<PdvRow> {
    try {
      return await q.insertPdv(tx.db, { ...input, tenantId: tx.tenantId, id: newId(), branchId });
    } catch (err) {
      // The branch went (deleted by another request) before this insert.
      if (isForeignKeyViolation(err)) throw new NotFound('Branch');
      throw pdvConflict(err);
    }
  }

  return {
    // ---- branches (spec 4.10)

    /** A branch under the HQ rule (the tenant's first is HQ whatever it says); the row. Demo seed and tests. */
    createBranch: (t: TenantDb, input: NewBranch): Promise<BranchRow> => t.run((tx) => insertBranch(tx, input)),

    /** `POST /admin/branches`. */
    create: (t: TenantDb, input: CreateBranchInput): Promise<BranchView> => t.run(async (tx) => toBranchView(await insertBranch(tx, input))),

    /** A page of the tenant's branches, HQ first then by name; a branch manager sees only theirs. */
    list: (t: TenantDb, scope: BranchScope, query: ListBranchesInput): Promise<BranchPageView> =>
      t.run(async (tx) => {
        const page = query.page ?? 1;
        const limit = query.limit ?? 20;
        const { rows, total } = await q.listBranches(tx.db, tx.tenantId, {
          active: query.active,
          only: scope.all ? undefined : scope.branchIds,
          offset: (page - 1) * limit,
          limit,
        });
        return { data: rows.map(toBranchView), total, page, totalPages: Math.ceil(total / limit) };
      }),

    /** The branch, or NotFound. */
    get: (t: TenantDb, id: string): Promise<BranchView> => t.run(async (tx) => toBranchView(await branchOf(tx, id))),

    /** The branch, or null when the tenant has none with this id. */
    findBranch: (t: TenantDb, id: string): Promise<BranchView | null> =>
      t.run(async (tx) => {
        const row = await q.findBranch(tx.db, tx.tenantId, id);
        return row ? toBranchView(row) : null;
      }),

    /**
     * `PUT /admin/branches/:id`: any subset of the fields. `isHQ: true` moves the headquarters here (an
     * admin's call: `scope.all`); the headquarters is never left without one (`isHQ: false` on it, or
     * deactivating it, is 409 `hq_required`), and an inactive branch is no headquarters.
     */
    update: (t: TenantDb, scope: BranchScope, id: string, input: UpdateBranchInput): Promise<BranchView> =>
      t.run(async (tx) => {
        const { isHQ, ...rest } = input;
        const fields = branchRowFields(rest);
        if (isHQ !== undefined || rest.active !== undefined) await q.lockTenantBranches(tx.db, tx.tenantId);
        const current = await branchOf(tx, id);
        const movesHq = isHQ !== undefined && isHQ !== current.isHQ;
        if (movesHq && !scope.all) throw new Forbidden('Only an admin changes which branch is the headquarters', 'role');
        if (movesHq && !isHQ) throw hqRequired('A tenant keeps its headquarters: make another branch the headquarters instead');
        if ((isHQ ?? current.isHQ) && !(rest.active ?? current.active)) {
          if (current.isHQ) throw hqRequired('The headquarters cannot be deactivated: make another branch the headquarters first');
          throw new Conflict('An inactive branch cannot be the headquarters: activate it first', 'branch_inactive');
        }
        if (movesHq) await q.clearHq(tx.db, tx.tenantId);
        try {
          const row = await q.updateBranch(tx.db, tx.tenantId, id, { ...fields, ...(movesHq ? { isHQ: true } : {}) });
          return toBranchView(row ?? current);
        } catch (err) {
          if (isUniqueViolation(err, q.BRANCH_SLUG_KEY)) throw branchSlugTaken();
          throw err;
        }
      }),

    /**
     * `DELETE /admin/branches/:id`: refused (409 `branch_in_use`) while it has PDVs, active or not (a
     * shift is always on a PDV), and for the headquarters while other branches exist (`hq_required`).
     */
    remove: (t: TenantDb, id: string): Promise<void> =>
      t.run(async (tx) => {
        await q.lockTenantBranches(tx.db, tx.tenantId);
        const current = await branchOf(tx, id);
        if (await q.branchHasPdvs(tx.db, tx.tenantId, id)) {
          throw new Conflict('The branch has points of sale: deactivate it instead', 'branch_in_use');
        }
        if (current.isHQ && (await q.otherBranchExists(tx.db, tx.tenantId, id))) {
          throw hqRequired('The headquarters cannot be deleted while other branches exist: make another branch the headquarters first');
        }
        try {
          await q.deleteBranch(tx.db, tx.tenantId, id);
        } catch (err) {
          // Something else still points at it (a PDV created at this moment, a record of another module).
          if (isForeignKeyViolation(err)) throw new Conflict('The branch is in use', 'branch_in_use');
          throw err;
        }
      }),

    // ---- points of sale

    createPdv: async (
      t: TenantDb,
      input: {
        branchId: string;
        name: string;
        slug: string;
        serviceMode?: ServiceMode;
        gatewayATerminalSerial?: string | null;
        pixKey?: string | null;
        /** Basis points, 0..3000 (30%); null or absent: the tenant's. */
        serviceChargeBp?: number | null;
        /** Cents per person, 0..100000; null or absent: the tenant's. */
        coverCharge?: number | null;
      },
    ) => {
      const { branchId, ...rest } = input;
      const fields = { ...pdvRowFields(rest), name: rest.name, slug: rest.slug };
      return t.run((tx) => insertPdv(tx, branchId, fields));
    },

    /** `POST /admin/branches/:id/pdvs`: a PDV in this branch of the tenant (NotFound otherwise). */
    addPdv: async (t: TenantDb, branchId: string, input: CreatePdvInput): Promise<PdvOut> => {
      const fields = { ...pdvRowFields(fromPdvInput(input)), name: input.name, slug: input.slug };
      return t.run(async (tx) => {
        await branchOf(tx, branchId);
        return toPdvOut(await insertPdv(tx, branchId, fields));
      });
    },

    /** `PUT /admin/branches/:id/pdvs/:pdvId`: any subset; `active: false` deactivates. The PDV must be in the branch. */
    updatePdv: async (t: TenantDb, branchId: string, pdvId: string, input: UpdatePdvInput): Promise<PdvOut> => {
      const fields = pdvRowFields(fromPdvInput(input));
      return t.run(async (tx) => {
        await branchOf(tx, branchId);
        const current = await q.findPdvById(tx.db, tx.tenantId, pdvId);
        if (!current || current.branchId !== branchId) throw new NotFound('PDV');
        try {
          return toPdvOut((await q.updatePdv(tx.db, tx.tenantId, pdvId, fields)) ?? current);
        } catch (err) {
          throw pdvConflict(err);
        }
      });
    },

    /** Every PDV of the branch, active or not, by slug; NotFound when the tenant has no such branch. */
    listBranchPdvs: (t: TenantDb, branchId: string): Promise<PdvView[]> =>
      t.run(async (tx) => {
        await branchOf(tx, branchId);
        return (await q.listBranchPdvs(tx.db, tx.tenantId, branchId)).map(toPdvView);
      }),

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
     * The PDVs the caller works (the floor and the cashier's shift pick one): every PDV for an admin,
     * a branch manager's branches' PDVs, a staff member's assigned PDVs; each with its branch's name.
     */
    async workedPdvs(t: TenantDb, scope: BranchScope): Promise<(PdvOut & { branchName: string })[]> {
      const allowed = await this.pdvScope(t, scope);
      const rows = await t.run((tx) => q.listPdvsWithBranch(tx.db, tx.tenantId));
      return rows.filter((r) => !allowed || allowed.includes(r.pdv.id)).map((r) => ({ ...toPdvOut(r.pdv), branchName: r.branchName }));
    },

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
