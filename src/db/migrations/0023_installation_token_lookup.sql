-- The public API's guard finds an installation by its token's first 16 hex characters before the tenant is
-- known. One statement instead of a bypass transaction: a SECURITY DEFINER function owned by the migrating
-- (owner) role, which bypasses row-level security for this one read of the columns the guard needs.
CREATE FUNCTION installation_by_token_lookup(p_lookup char(16))
RETURNS TABLE (id char(24), tenant_id char(24), installed_by char(24), scopes text[], status text, access_token_hash text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public
AS $$
  SELECT i.id, i.tenant_id, i.installed_by, i.scopes, i.status, i.access_token_hash
  FROM app_installations i WHERE i.token_lookup = p_lookup
$$;--> statement-breakpoint
REVOKE ALL ON FUNCTION installation_by_token_lookup(char) FROM PUBLIC;--> statement-breakpoint
GRANT EXECUTE ON FUNCTION installation_by_token_lookup(char) TO app_tenant;
