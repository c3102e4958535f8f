CREATE TABLE "catalog_sync_runs" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) PRIMARY KEY NOT NULL,
	"integration_id" char(24) NOT NULL,
	"full" boolean NOT NULL,
	"total" integer NOT NULL,
	"synced" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"failures" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "delivery_events" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) PRIMARY KEY NOT NULL,
	"integration_id" char(24) NOT NULL,
	"provider" text NOT NULL,
	"idempotency_key" text,
	"type" text NOT NULL,
	"external_order_id" text,
	"status" text DEFAULT 'queued' NOT NULL,
	"order_id" char(24),
	"review_reason" text,
	"error" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"payload" jsonb NOT NULL,
	"received_at" timestamp with time zone NOT NULL,
	"processed_at" timestamp with time zone,
	"ack_latency_ms" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "delivery_status_pushes" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) PRIMARY KEY NOT NULL,
	"integration_id" char(24) NOT NULL,
	"order_id" char(24) NOT NULL,
	"external_order_id" text NOT NULL,
	"status" text NOT NULL,
	"provider_status" text,
	"result" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "marketplace_integrations" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"active" boolean DEFAULT false NOT NULL,
	"credentials" text NOT NULL,
	"webhook_secret" text,
	"jwks_url" text,
	"tokens" text,
	"last_sync_at" timestamp with time zone,
	"synced_item_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "menu_items" ADD COLUMN "external_codes" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "external_provider" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "external_id" text;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "marketplace" jsonb;--> statement-breakpoint
ALTER TABLE "catalog_sync_runs" ADD CONSTRAINT "catalog_sync_runs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "catalog_sync_runs" ADD CONSTRAINT "catalog_sync_runs_integration_id_marketplace_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."marketplace_integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "delivery_events" ADD CONSTRAINT "delivery_events_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "delivery_events" ADD CONSTRAINT "delivery_events_integration_id_marketplace_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."marketplace_integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "delivery_status_pushes" ADD CONSTRAINT "delivery_status_pushes_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "delivery_status_pushes" ADD CONSTRAINT "delivery_status_pushes_integration_id_marketplace_integrations_id_fk" FOREIGN KEY ("integration_id") REFERENCES "public"."marketplace_integrations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "marketplace_integrations" ADD CONSTRAINT "marketplace_integrations_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "delivery_events_status_idx" ON "delivery_events" USING btree ("tenant_id","status","received_at");--> statement-breakpoint
CREATE INDEX "delivery_status_pushes_order_idx" ON "delivery_status_pushes" USING btree ("tenant_id","order_id");--> statement-breakpoint
CREATE UNIQUE INDEX "marketplace_integrations_provider_key" ON "marketplace_integrations" USING btree ("tenant_id","provider");--> statement-breakpoint
CREATE UNIQUE INDEX "orders_external_key" ON "orders" USING btree ("tenant_id","external_provider","external_id");--> statement-breakpoint
SELECT enable_tenant_isolation('marketplace_integrations');--> statement-breakpoint
SELECT enable_tenant_isolation('delivery_events');--> statement-breakpoint
SELECT enable_tenant_isolation('delivery_status_pushes');--> statement-breakpoint
SELECT enable_tenant_isolation('catalog_sync_runs');
