import type { TenantDb } from '../../db/scopes.js';
import type { TablesService } from './tables.service.js';

/** Ten tables: the main room, the veranda and the mezzanine. */
const TABLES: [number: number, capacity: number, location: string][] = [
  [1, 2, 'Salão'],
  [2, 2, 'Salão'],
  [3, 4, 'Salão'],
  [4, 4, 'Salão'],
  [5, 4, 'Salão'],
  [6, 6, 'Salão'],
  [7, 4, 'Varanda'],
  [8, 4, 'Varanda'],
  [9, 6, 'Mezanino'],
  [10, 10, 'Mezanino'],
];

export async function seedDemoTables(tables: TablesService, t: TenantDb) {
  for (const [number, capacity, location] of TABLES) await tables.create(t, { number, capacity, location });
  return TABLES.length;
}
