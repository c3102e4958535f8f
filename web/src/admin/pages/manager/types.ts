/** The API types the manager pages use (from the generated schema). */
import type { components, paths } from '../../api/schema.js';

type S = components['schemas'];
type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;

export type Category = S['MenuCategory'];
export type Group = S['ModifierGroup'];
export type Table = S['Table'];
export type Reservation = S['Reservation'];
export type StockAlert = S['StockAlert'];
export type AdminItem = Json<paths['/t/{slug}/admin/menu/items']['get']['responses'][200]>[number];
export type Ingredient = Json<paths['/t/{slug}/inventory/ingredients']['get']['responses'][200]>[number];
export type InventoryItem = Json<paths['/t/{slug}/inventory']['get']['responses'][200]>[number];
export type Branch = Json<paths['/api/t/{slug}/admin/branches']['get']['responses'][200]>['data'][number];
export type Pdv = Json<paths['/api/t/{slug}/admin/branches/{id}/pdvs']['get']['responses'][200]>[number];
export type DailyReport = Json<paths['/api/t/{slug}/admin/branches/{id}/daily-report']['get']['responses'][200]>;
export type Order = Json<paths['/t/{slug}/orders']['get']['responses'][200]>[number];
