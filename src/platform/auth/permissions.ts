import type { MemberRole } from '../../db/schema/users.js';

/** Every role a route can name. `superadmin` is the platform role and passes every tenant check. */
export type Role = MemberRole | 'superadmin';

/** The roles that work the floor (orders, tables, reservations, the kitchen display); accountants do not. */
export const FLOOR_ROLES = ['admin', 'branch_manager', 'staff'] as const satisfies readonly MemberRole[];

/** Who may join a tenant's real-time staff rooms (spec 6), besides the superadmin. */
export const ROOM_ROLES = {
  kitchen: FLOOR_ROLES,
  inventory: ['admin', 'staff'],
} as const satisfies Record<string, readonly MemberRole[]>;

/**
 * The permission matrix: which tenant roles hold each permission. Superadmin holds all.
 * The spec writes some names twice (ManageInventory / manage_inventory); both resolve here.
 */
export const PERMISSIONS = {
  manage_inventory: ['admin', 'branch_manager', 'staff'],
  manage_settings: ['admin'],
  /** Spec 4.11: the books are kept by the admin (and superadmin); the accountant reads the reports only. */
  manage_accounting: ['admin'],
} as const satisfies Record<string, readonly MemberRole[]>;

export type Permission = keyof typeof PERMISSIONS;

export const PERMISSION_ALIASES: Record<string, Permission> = {
  ManageInventory: 'manage_inventory',
  ManageSettings: 'manage_settings',
  ManageAccounting: 'manage_accounting',
};

/** Plan features: which plans include each. */
export const PLAN_FEATURES = {
  supplierManagement: ['basic', 'premium'],
  inventoryPrediction: ['premium'],
} as const satisfies Record<string, readonly ('free' | 'basic' | 'premium')[]>;

export type PlanFeature = keyof typeof PLAN_FEATURES;
export type Plan = 'free' | 'basic' | 'premium';

export function roleHolds(role: Role, permission: Permission): boolean {
  if (role === 'superadmin') return true;
  return (PERMISSIONS[permission] as readonly string[]).includes(role);
}

export function planHas(plan: Plan, feature: PlanFeature): boolean {
  return (PLAN_FEATURES[feature] as readonly string[]).includes(plan);
}
