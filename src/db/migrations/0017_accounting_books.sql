CREATE TABLE "account_mappings" (
	"tenant_id" char(24) NOT NULL,
	"key" text NOT NULL,
	"account_id" char(24) NOT NULL,
	"updated_by" char(24),
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "account_mappings_tenant_id_key_pk" PRIMARY KEY("tenant_id","key")
);
--> statement-breakpoint
CREATE TABLE "bank_accounts" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"name" text NOT NULL,
	"bank" text NOT NULL,
	"agency" text NOT NULL,
	"account" text NOT NULL,
	"type" text NOT NULL,
	"ledger_account_id" char(24) NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "bank_accounts_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "bank_imports" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"bank_account_id" char(24) NOT NULL,
	"file_name" text,
	"format" text NOT NULL,
	"lines_read" integer NOT NULL,
	"lines_added" integer NOT NULL,
	"created_by" char(24),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "bank_imports_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "bank_statement_lines" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"bank_account_id" char(24) NOT NULL,
	"import_id" char(24) NOT NULL,
	"fit_id" text NOT NULL,
	"posted_date" date NOT NULL,
	"amount_cents" bigint NOT NULL,
	"description" text NOT NULL,
	"status" text DEFAULT 'unmatched' NOT NULL,
	"matched_entry_id" char(24),
	"matched_at" timestamp with time zone,
	"matched_by" char(24),
	"ignored_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "bank_statement_lines_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "receivables" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"source" text NOT NULL,
	"source_id" text,
	"customer_name" text,
	"description" text NOT NULL,
	"account_id" char(24) NOT NULL,
	"method" text,
	"amount_cents" bigint NOT NULL,
	"received_cents" bigint DEFAULT 0 NOT NULL,
	"written_off_cents" bigint DEFAULT 0 NOT NULL,
	"issue_date" date NOT NULL,
	"due_date" date NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"settlements" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"write_off_reason" text,
	"entry_id" char(24),
	"write_off_entry_id" char(24),
	"created_by" char(24),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "receivables_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "account_mappings" ADD CONSTRAINT "account_mappings_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bank_accounts" ADD CONSTRAINT "bank_accounts_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bank_imports" ADD CONSTRAINT "bank_imports_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bank_statement_lines" ADD CONSTRAINT "bank_statement_lines_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "receivables" ADD CONSTRAINT "receivables_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "bank_accounts_number_key" ON "bank_accounts" USING btree ("tenant_id","bank","agency","account");--> statement-breakpoint
CREATE UNIQUE INDEX "bank_statement_lines_fit_key" ON "bank_statement_lines" USING btree ("tenant_id","bank_account_id","fit_id");--> statement-breakpoint
CREATE UNIQUE INDEX "bank_statement_lines_entry_key" ON "bank_statement_lines" USING btree ("tenant_id","matched_entry_id") WHERE "bank_statement_lines"."matched_entry_id" is not null;--> statement-breakpoint
CREATE INDEX "bank_statement_lines_status_idx" ON "bank_statement_lines" USING btree ("tenant_id","bank_account_id","status","posted_date");--> statement-breakpoint
CREATE UNIQUE INDEX "receivables_source_key" ON "receivables" USING btree ("tenant_id","source","source_id") WHERE "receivables"."source_id" is not null;--> statement-breakpoint
CREATE INDEX "receivables_status_idx" ON "receivables" USING btree ("tenant_id","status","due_date");--> statement-breakpoint
SELECT enable_tenant_isolation('receivables');--> statement-breakpoint
SELECT enable_tenant_isolation('bank_accounts');--> statement-breakpoint
SELECT enable_tenant_isolation('bank_imports');--> statement-breakpoint
SELECT enable_tenant_isolation('bank_statement_lines');--> statement-breakpoint
SELECT enable_tenant_isolation('account_mappings');--> statement-breakpoint
ALTER TABLE "receivables" ADD CONSTRAINT "receivables_amount_check" CHECK ("amount_cents" > 0 AND "received_cents" >= 0 AND "written_off_cents" >= 0 AND "received_cents" + "written_off_cents" <= "amount_cents");
