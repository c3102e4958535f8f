-- rate_limit_windows is UNLOGGED: counters need no WAL (a crash only resets the windows), so a hit on the hot path commits without a WAL flush.
CREATE UNLOGGED TABLE "rate_limit_windows" (
	"key" text PRIMARY KEY NOT NULL,
	"secs" bigint[] NOT NULL,
	"counts" integer[] NOT NULL
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" char(24) PRIMARY KEY NOT NULL,
	"user_id" char(24) NOT NULL,
	"key_hash" char(64) NOT NULL,
	"label" text DEFAULT '' NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "app_installations" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) PRIMARY KEY NOT NULL,
	"app_id" char(24) NOT NULL,
	"installed_by" char(24) NOT NULL,
	"scopes" text[] NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"token_lookup" char(16) NOT NULL,
	"access_token_hash" text NOT NULL,
	"signing_secret" text NOT NULL,
	"webhooks_disabled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "app_webhook_deliveries" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) PRIMARY KEY NOT NULL,
	"installation_id" char(24) NOT NULL,
	"event_id" text NOT NULL,
	"event_type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"attempts" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"delivered_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "apps" (
	"id" char(24) PRIMARY KEY NOT NULL,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"client_id" uuid NOT NULL,
	"client_secret_hash" text NOT NULL,
	"scopes" text[] DEFAULT '{}' NOT NULL,
	"webhook_url" text,
	"status" text DEFAULT 'draft' NOT NULL,
	"published_at" timestamp with time zone,
	"deprecated_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_installations" ADD CONSTRAINT "app_installations_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_installations" ADD CONSTRAINT "app_installations_app_id_apps_id_fk" FOREIGN KEY ("app_id") REFERENCES "public"."apps"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_installations" ADD CONSTRAINT "app_installations_installed_by_users_id_fk" FOREIGN KEY ("installed_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_webhook_deliveries" ADD CONSTRAINT "app_webhook_deliveries_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app_webhook_deliveries" ADD CONSTRAINT "app_webhook_deliveries_installation_id_app_installations_id_fk" FOREIGN KEY ("installation_id") REFERENCES "public"."app_installations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_user_idx" ON "api_keys" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "app_installations_token_lookup_key" ON "app_installations" USING btree ("token_lookup");--> statement-breakpoint
CREATE UNIQUE INDEX "app_installations_active_key" ON "app_installations" USING btree ("tenant_id","app_id") WHERE status = 'active';--> statement-breakpoint
CREATE INDEX "app_installations_tenant_idx" ON "app_installations" USING btree ("tenant_id","status");--> statement-breakpoint
CREATE UNIQUE INDEX "app_webhook_deliveries_event_key" ON "app_webhook_deliveries" USING btree ("installation_id","event_id");--> statement-breakpoint
CREATE INDEX "app_webhook_deliveries_installation_idx" ON "app_webhook_deliveries" USING btree ("tenant_id","installation_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "apps_slug_key" ON "apps" USING btree ("slug");--> statement-breakpoint
CREATE UNIQUE INDEX "apps_client_id_key" ON "apps" USING btree ("client_id");--> statement-breakpoint
SELECT enable_tenant_isolation('app_installations');--> statement-breakpoint
SELECT enable_tenant_isolation('app_webhook_deliveries');
