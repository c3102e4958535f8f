CREATE TABLE "fiscal_counters" (
	"tenant_id" char(24) NOT NULL,
	"branch_key" text NOT NULL,
	"model" integer NOT NULL,
	"series" integer NOT NULL,
	"last" integer NOT NULL,
	CONSTRAINT "fiscal_counters_tenant_id_branch_key_model_series_pk" PRIMARY KEY("tenant_id","branch_key","model","series")
);
--> statement-breakpoint
CREATE TABLE "fiscal_documents" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"order_id" char(24) NOT NULL,
	"branch_key" text DEFAULT '' NOT NULL,
	"tipo" text NOT NULL,
	"model" integer NOT NULL,
	"series" integer NOT NULL,
	"number" integer NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"nfe_key" text NOT NULL,
	"provider_ref" text NOT NULL,
	"customer_cpf" text,
	"total_cents" bigint NOT NULL,
	"taxes" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"items" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"error_details" jsonb,
	"protocol" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"emitted_at" timestamp with time zone,
	"authorized_at" timestamp with time zone,
	"cancelled_at" timestamp with time zone,
	"cancel_reason" text,
	"created_by" char(24),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "fiscal_documents_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "fiscal_exports" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"token" text NOT NULL,
	"kind" text NOT NULL,
	"file_name" text NOT NULL,
	"content_type" text NOT NULL,
	"body" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_by" char(24),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "fiscal_exports_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "fiscal_files" (
	"tenant_id" char(24) NOT NULL,
	"document_id" char(24) NOT NULL,
	"kind" text NOT NULL,
	"content_type" text NOT NULL,
	"body" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "fiscal_files_tenant_id_document_id_kind_pk" PRIMARY KEY("tenant_id","document_id","kind")
);
--> statement-breakpoint
CREATE TABLE "fiscal_number_voids" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"branch_key" text NOT NULL,
	"model" integer NOT NULL,
	"series" integer NOT NULL,
	"number_from" integer NOT NULL,
	"number_to" integer NOT NULL,
	"reason" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"protocol" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "fiscal_number_voids_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "ncm_codes" (
	"code" text NOT NULL,
	"display" text NOT NULL,
	"description" text NOT NULL,
	"search_text" text NOT NULL,
	"category" text NOT NULL,
	CONSTRAINT "ncm_codes_code_pk" PRIMARY KEY("code")
);
--> statement-breakpoint
ALTER TABLE "menu_items" ADD COLUMN "ncm" text;--> statement-breakpoint
ALTER TABLE "menu_items" ADD COLUMN "cfop" text;--> statement-breakpoint
ALTER TABLE "menu_items" ADD COLUMN "cest" text;--> statement-breakpoint
ALTER TABLE "menu_items" ADD COLUMN "tax_code" text;--> statement-breakpoint
ALTER TABLE "fiscal_counters" ADD CONSTRAINT "fiscal_counters_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fiscal_documents" ADD CONSTRAINT "fiscal_documents_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fiscal_exports" ADD CONSTRAINT "fiscal_exports_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fiscal_files" ADD CONSTRAINT "fiscal_files_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "fiscal_number_voids" ADD CONSTRAINT "fiscal_number_voids_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "fiscal_documents_active_key" ON "fiscal_documents" USING btree ("tenant_id","order_id","tipo") WHERE "fiscal_documents"."status" in ('pending', 'authorized');--> statement-breakpoint
CREATE UNIQUE INDEX "fiscal_documents_number_key" ON "fiscal_documents" USING btree ("tenant_id","branch_key","model","series","number");--> statement-breakpoint
CREATE UNIQUE INDEX "fiscal_documents_provider_ref_key" ON "fiscal_documents" USING btree ("provider_ref");--> statement-breakpoint
CREATE INDEX "fiscal_documents_status_idx" ON "fiscal_documents" USING btree ("tenant_id","status","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "fiscal_exports_token_key" ON "fiscal_exports" USING btree ("token");--> statement-breakpoint
CREATE INDEX "ncm_codes_search_trgm" ON "ncm_codes" USING gin ("search_text" gin_trgm_ops);--> statement-breakpoint
SELECT enable_tenant_isolation('fiscal_documents');--> statement-breakpoint
SELECT enable_tenant_isolation('fiscal_counters');--> statement-breakpoint
SELECT enable_tenant_isolation('fiscal_number_voids');--> statement-breakpoint
SELECT enable_tenant_isolation('fiscal_files');--> statement-breakpoint
SELECT enable_tenant_isolation('fiscal_exports');--> statement-breakpoint
-- The NCM table is shared: every tenant reads it, only the owner (the seed, through the bypass) writes it.
GRANT SELECT ON "ncm_codes" TO app_tenant;--> statement-breakpoint
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON "ncm_codes" FROM app_tenant;
