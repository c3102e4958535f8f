-- Tenant isolation enforced by PostgreSQL (docs/architecture.md, "Tenant isolation in the database").
-- Tenant work runs as app_tenant: it owns nothing, cannot bypass row-level security, and sees only
-- the rows whose tenant_id is the transaction's `app.tenant_id`.
DO $$
BEGIN
  CREATE ROLE app_tenant NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
  NULL; -- roles are per cluster: another database of the cluster (or a DBA) made it
END
$$;
--> statement-breakpoint
-- The service's own login must be able to SET ROLE app_tenant (a superuser always can).
DO $$
BEGIN
  IF NOT pg_has_role(current_user, 'app_tenant', 'MEMBER') THEN
    EXECUTE format('GRANT app_tenant TO %I', current_user);
  END IF;
END
$$;
--> statement-breakpoint
GRANT USAGE ON SCHEMA public TO app_tenant;
--> statement-breakpoint
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO app_tenant;
--> statement-breakpoint
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO app_tenant;
--> statement-breakpoint
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO app_tenant;
--> statement-breakpoint
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO app_tenant;
--> statement-breakpoint
-- What every later migration calls for a new table with tenant_id: RLS enabled and forced, and the
-- one policy for reads and writes. test/tenant-isolation.test.ts fails on a table without it.
CREATE FUNCTION enable_tenant_isolation(tbl regclass) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', tbl);
  EXECUTE format('ALTER TABLE %s FORCE ROW LEVEL SECURITY', tbl);
  EXECUTE format(
    'CREATE POLICY tenant_isolation ON %s USING (tenant_id = current_setting(''app.tenant_id'', true)::bpchar) '
    'WITH CHECK (tenant_id = current_setting(''app.tenant_id'', true)::bpchar)', tbl);
END
$$;
--> statement-breakpoint
REVOKE ALL ON FUNCTION enable_tenant_isolation(regclass) FROM PUBLIC;
--> statement-breakpoint
SELECT enable_tenant_isolation(t) FROM unnest(ARRAY[
  'memberships', 'menu_categories', 'menu_items', 'modifier_groups', 'menu_item_modifier_groups', 'menu_versions',
  'dining_tables', 'reservations', 'branches', 'pdvs', 'order_counters', 'orders'
]::regclass[]) AS t;
