CREATE TABLE "audit_events" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) PRIMARY KEY NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"action" text NOT NULL,
	"actor_user_id" char(24),
	"actor_label" text,
	"target_type" text,
	"target_id" text,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"ip" "inet"
);
--> statement-breakpoint
CREATE TABLE "platform_audit_events" (
	"id" char(24) PRIMARY KEY NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"action" text NOT NULL,
	"actor_user_id" char(24),
	"actor_label" text,
	"target_type" text,
	"target_id" text,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"ip" "inet"
);
--> statement-breakpoint
ALTER TABLE "audit_events" ADD CONSTRAINT "audit_events_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_events_tenant_at_idx" ON "audit_events" USING btree ("tenant_id","at","id");--> statement-breakpoint
CREATE INDEX "audit_events_tenant_action_idx" ON "audit_events" USING btree ("tenant_id","action","at");--> statement-breakpoint
CREATE INDEX "platform_audit_events_at_idx" ON "platform_audit_events" USING btree ("at","id");--> statement-breakpoint
SELECT enable_tenant_isolation('audit_events');--> statement-breakpoint
-- Append-only: the service's role may add and read events, never change or remove one.
REVOKE UPDATE, DELETE, TRUNCATE ON "audit_events" FROM app_tenant;--> statement-breakpoint
REVOKE UPDATE, DELETE, TRUNCATE ON "platform_audit_events" FROM app_tenant;
