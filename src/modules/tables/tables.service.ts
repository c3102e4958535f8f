import { newId } from '../../db/ids.js';
import type { Db } from '../../db/client.js';
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

export function tablesService({ db }: Deps) {
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
    async list(tenantId: string): Promise<TableView[]> {
      return (await q.listTables(db, tenantId)).map(toTableView);
    },

    async create(tenantId: string, input: CreateTableInput): Promise<TableView> {
      if (await q.findTableByNumber(db, tenantId, input.number)) throw numberTaken(input.number);
      const row = await guardNumber(input.number, () =>
        q.insertTable(db, {
          tenantId,
          id: newId(),
          number: input.number,
          capacity: input.capacity,
          location: input.location?.trim() ?? null,
          status: input.status ?? 'available',
        }),
      );
      return toTableView(row);
    },

    async update(tenantId: string, id: string, input: UpdateTableInput): Promise<TableView> {
      if (input.number !== undefined) {
        const other = await q.findTableByNumber(db, tenantId, input.number);
        if (other && other.id !== id && (await q.findTable(db, tenantId, id))) throw numberTaken(input.number);
      }
      const { location, ...rest } = input;
      const row = await guardNumber(input.number, () =>
        q.updateTable(db, tenantId, id, { ...rest, ...(location !== undefined ? { location: location?.trim() ?? null } : {}) }),
      );
      if (!row) throw new NotFound('Table');
      return toTableView(row);
    },

    /** Soft delete (orders keep naming the table); an occupied table cannot be deleted. */
    async remove(tenantId: string, id: string) {
      const outcome = await q.softDeleteTable(db, tenantId, id);
      if (outcome === 'missing') throw new NotFound('Table');
      if (outcome === 'occupied') throw new Conflict('The table is occupied; close its tab first', 'table_occupied');
      return { deleted: true };
    },

    // ---- for the orders module

    /** A live table of the tenant, or null. Pass a transaction as `exec` to read inside it. */
    async findById(tenantId: string, id: string, exec: Db = db): Promise<TableView | null> {
      const row = await q.findTable(exec, tenantId, id);
      return row ? toTableView(row) : null;
    },

    /** A live table by its number (the QR code of the customer menu carries the number). */
    async findByNumber(tenantId: string, number: number, exec: Db = db): Promise<TableView | null> {
      const row = await q.findTableByNumber(exec, tenantId, number);
      return row ? toTableView(row) : null;
    },

    /** Marks a table occupied, available or reserved (e.g. when a tab opens or closes); `NotFound` when missing. */
    async setStatus(tenantId: string, id: string, status: TableStatus, exec: Db = db): Promise<TableView> {
      const row = await q.updateTable(exec, tenantId, id, { status });
      if (!row) throw new NotFound('Table');
      return toTableView(row);
    },
  };
}

export type TablesService = ReturnType<typeof tablesService>;
