import { newId } from '../../db/ids.js';
import type { TenantDb, TenantTx } from '../../db/scopes.js';
import type { DiningTableRow, TableStatus } from '../../db/schema/tables.js';
import type { Deps } from '../../platform/deps.js';
import { Conflict, isUniqueViolation, NotFound } from '../../platform/domain-errors.js';
import * as q from './tables.queries.js';
import type { CreateTableInput, TableView, UpdateTableInput } from './tables.schemas.js';

export function toTableView(t: DiningTableRow): TableView {
  return {
    _id: t.id,
    number: t.number,
    capacity: t.capacity,
    status: t.status,
    location: t.location,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}

const numberTaken = (n: number) => new Conflict(`Table ${n} already exists`, 'table_number_taken');

/** Asked, inside the transaction, whether a table may be freed or deleted; throws a `Conflict` when not. */
export type ReleaseCheck = (tx: TenantTx, tableId: string) => Promise<void>;

/** The open order of a table as the orders module tells it: its tab, else the oldest open dine-in order. */
export interface TableOrder {
  id: string;
  orderNumber: string;
  isTab: boolean;
}
export type TableOrderLookup = (tx: TenantTx, tableId: string) => Promise<TableOrder | null>;

/**
 * What happened to a table's tab, told by the orders module inside its transaction: a tab opened on a
 * table, moved to another table, or merged into another order. The reservations module listens (a seated
 * party's reservation follows its tab). A listener may throw a domain error to refuse the change.
 */
export type TabEvent =
  | { kind: 'opened'; tableId: string; orderId: string }
  | { kind: 'moved'; orderId: string; from: string; to: string }
  | { kind: 'merged'; orderId: string; into: string };
export type TabListener = (tx: TenantTx, event: TabEvent) => Promise<void>;

export function tablesService(_deps: Deps) {
  const releaseChecks: ReleaseCheck[] = [];
  const tabListeners: TabListener[] = [];
  let orderLookup: TableOrderLookup | null = null;
  const checkRelease = async (tx: TenantTx, tableId: string) => {
    for (const check of releaseChecks) await check(tx, tableId);
  };

  /** The database has the last word on uniqueness: two concurrent creates cannot both win. */
  async function guardNumber<T>(n: number | undefined, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (n !== undefined && isUniqueViolation(err, q.NUMBER_KEY)) throw numberTaken(n);
      throw err;
    }
  }

  return {
    async list(t: TenantDb): Promise<TableView[]> {
      return t.run(async (tx) => (await q.listTables(tx.db, tx.tenantId)).map(toTableView));
    },

    create: (t: TenantDb, input: CreateTableInput): Promise<TableView> =>
      t.run(async (tx) => {
        if (await q.findTableByNumber(tx.db, tx.tenantId, input.number)) throw numberTaken(input.number);
        const row = await guardNumber(input.number, () =>
          q.insertTable(tx.db, {
            tenantId: tx.tenantId,
            id: newId(),
            number: input.number,
            capacity: input.capacity,
            location: input.location?.trim() ?? null,
            status: input.status ?? 'available',
          }),
        );
        return toTableView(row);
      }),

    update: (t: TenantDb, id: string, input: UpdateTableInput): Promise<TableView> =>
      t.run(async (tx) => {
        if (input.number !== undefined) {
          const other = await q.findTableByNumber(tx.db, tx.tenantId, input.number);
          if (other && other.id !== id && (await q.findTable(tx.db, tx.tenantId, id))) throw numberTaken(input.number);
        }
        // Freeing a table by hand while an order is still open on it would seat a new party on a running bill.
        if (input.status === 'available') await checkRelease(tx, id);
        const { location, ...rest } = input;
        const row = await guardNumber(input.number, () =>
          q.updateTable(tx.db, tx.tenantId, id, { ...rest, ...(location !== undefined ? { location: location?.trim() ?? null } : {}) }),
        );
        if (!row) throw new NotFound('Table');
        return toTableView(row);
      }),

    /** Soft delete (orders keep naming the table); an occupied table cannot be deleted. */
    async remove(t: TenantDb, id: string) {
      const outcome = await t.run(async (tx) => {
        await checkRelease(tx, id);
        return q.softDeleteTable(tx.db, tx.tenantId, id);
      });
      if (outcome === 'missing') throw new NotFound('Table');
      if (outcome === 'occupied') throw new Conflict('The table is occupied; close its tab first', 'table_occupied');
      return { deleted: true };
    },

    // ---- for the orders module (pass the caller's transaction handle to read or write inside it)

    /** `check` runs before a table is set available by hand or deleted (the orders module refuses while an order is open on it). */
    onRelease(check: ReleaseCheck) {
      releaseChecks.push(check);
    },

    /** A live table of the tenant, or null. */
    findById: (t: TenantDb, id: string): Promise<TableView | null> =>
      t.run(async (tx) => {
        const row = await q.findTable(tx.db, tx.tenantId, id);
        return row ? toTableView(row) : null;
      }),

    /** A live table by its number (the QR code of the customer menu carries the number). */
    findByNumber: (t: TenantDb, number: number): Promise<TableView | null> =>
      t.run(async (tx) => {
        const row = await q.findTableByNumber(tx.db, tx.tenantId, number);
        return row ? toTableView(row) : null;
      }),

    /**
     * A live table with its row locked until the caller's transaction ends (pass the `TenantTx`), or null:
     * writers that hold or seat a table lock it first, so two of them on one table take turns.
     */
    lock: (t: TenantDb, id: string): Promise<TableView | null> =>
      t.run(async (tx) => {
        const row = await q.lockTable(tx.db, tx.tenantId, id);
        return row ? toTableView(row) : null;
      }),

    /** The orders module answers `activeOrderOf` through `lookup` (one lookup; the modules' dependency stays orders -> tables). */
    setOrderLookup(lookup: TableOrderLookup) {
      orderLookup = lookup;
    },

    /** The open order of a table (its tab first), in the caller's transaction; null when none (or no orders module). */
    activeOrderOf: (t: TenantDb, tableId: string): Promise<TableOrder | null> =>
      t.run((tx) => (orderLookup ? orderLookup(tx, tableId) : Promise.resolve(null))),

    /** `listener` runs inside the transaction of every tab event (see `TabEvent`). */
    onTabEvent(listener: TabListener) {
      tabListeners.push(listener);
    },

    /** Tells the listeners what happened to a tab, in the caller's transaction (pass the `TenantTx`). */
    tabEvent: (t: TenantDb, event: TabEvent): Promise<void> =>
      t.run(async (tx) => {
        for (const listener of tabListeners) await listener(tx, event);
      }),

    /** Marks a table occupied, available or reserved (e.g. when a tab opens or closes); `NotFound` when missing. */
    setStatus: (t: TenantDb, id: string, status: TableStatus): Promise<TableView> =>
      t.run(async (tx) => {
        const row = await q.updateTable(tx.db, tx.tenantId, id, { status });
        if (!row) throw new NotFound('Table');
        return toTableView(row);
      }),
  };
}

export type TablesService = ReturnType<typeof tablesService>;
