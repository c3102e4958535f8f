/** The stock pages of the panel (see ../../types.ts). The API decides; these roles only shape the menu. */
import type { PanelRoute } from '../../types.js';

export const routes: PanelRoute[] = [
  { path: 'stock', title: 'Estoque', section: 'stock', roles: ['admin', 'branch_manager', 'staff'], nav: true, load: () => import('./ItemsPage.js') },
  { path: 'stock/items/:id', title: 'Item do estoque', section: 'stock', roles: ['admin', 'branch_manager', 'staff'], load: () => import('./ItemPage.js') },
  {
    path: 'stock/branches',
    title: 'Estoque por PDV',
    section: 'stock',
    roles: ['admin', 'branch_manager', 'staff'],
    nav: true,
    load: () => import('./BranchStockPage.js'),
  },
  { path: 'stock/suppliers', title: 'Fornecedores', section: 'stock', roles: ['admin'], nav: true, load: () => import('./SuppliersPage.js') },
  { path: 'stock/purchase-orders', title: 'Pedidos de compra', section: 'stock', roles: ['admin'], nav: true, load: () => import('./PurchaseOrdersPage.js') },
  { path: 'stock/nfe-import', title: 'Importar NF-e', section: 'stock', roles: ['admin'], nav: true, load: () => import('./NfeImportPage.js') },
];
