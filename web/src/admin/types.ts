/** What every panel page receives, and how an area declares its pages. */
import type { ComponentType } from 'preact';

/** A member's role in a tenant (the API's MEMBER_ROLES), or `superadmin` for the platform operator. */
export type Role = 'admin' | 'staff' | 'accountant' | 'branch_manager' | 'superadmin';

/** The tenant the panel is working on (from `GET /auth/me` and `GET /t/:slug/storefront`). */
export interface TenantInfo {
  _id: string;
  slug: string;
  name: string;
  businessType: 'restaurant' | 'mercado' | 'padaria';
  timezone: string;
  primaryColor: string | null;
}

export interface PageProps {
  slug: string;
  tenant: TenantInfo;
  role: Role;
  /** The named parts of the page's path (`:id`). */
  params: Record<string, string>;
  query: URLSearchParams;
}

export type Section = 'floor' | 'manager' | 'stock' | 'books' | 'settings';

export interface PanelRoute {
  /** Relative to `/admin/t/:slug/`, e.g. `floor` or `floor/tables/:tableId`. */
  path: string;
  /** Heading and menu label. */
  title: string;
  section: Section;
  /** Who may open it (the API still decides). */
  roles: readonly Role[];
  /** Listed in the menu (detail pages are not). */
  nav?: boolean;
  /** Loaded on first visit: each page is its own chunk. */
  load: () => Promise<{ default: ComponentType<PageProps> }>;
}
