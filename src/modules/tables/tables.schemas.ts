import { Type, type Static } from '@sinclair/typebox';
import { TABLE_STATUSES } from '../../db/schema/tables.js';
import { Body, Nullable, StringEnum, Timestamp } from '../../platform/schemas.js';

const TableNumber = Type.Integer({ minimum: 1, maximum: 9999, description: 'unique among the tenant’s tables' });
const Capacity = Type.Integer({ minimum: 1, maximum: 100, description: 'seats' });
const Location = Type.String({ minLength: 1, maxLength: 80, pattern: '\\S', description: 'e.g. salão, varanda, mezanino' });
export const TableStatusSchema = StringEnum(TABLE_STATUSES);

export const Table = Type.Object(
  {
    _id: Type.String(),
    number: Type.Integer(),
    capacity: Type.Integer(),
    status: TableStatusSchema,
    location: Nullable(Type.String()),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  },
  { $id: 'Table' },
);

export const CreateTableBody = Body({
  number: TableNumber,
  capacity: Capacity,
  location: Type.Optional(Location),
  status: Type.Optional(StringEnum(TABLE_STATUSES, { description: 'default available' })),
});

export const UpdateTableBody = Body({
  number: Type.Optional(TableNumber),
  capacity: Type.Optional(Capacity),
  location: Type.Optional(Nullable(Location, { description: 'null clears it' })),
  status: Type.Optional(TableStatusSchema),
});

export const Deleted = Type.Object({ deleted: Type.Boolean() });

export type TableView = Static<typeof Table>;
export type CreateTableInput = Static<typeof CreateTableBody>;
export type UpdateTableInput = Static<typeof UpdateTableBody>;
