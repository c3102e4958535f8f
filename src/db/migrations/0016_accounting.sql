CREATE TABLE "chart_accounts" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"code" text NOT NULL,
	"name" text NOT NULL,
	"nature" text NOT NULL,
	"type" text NOT NULL,
	"normal_balance" text NOT NULL,
	"parent_id" char(24),
	"dre_group" text,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chart_accounts_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "journal_counters" (
	"tenant_id" char(24) NOT NULL,
	"year" integer NOT NULL,
	"last" integer NOT NULL,
	CONSTRAINT "journal_counters_tenant_id_year_pk" PRIMARY KEY("tenant_id","year")
);
--> statement-breakpoint
CREATE TABLE "journal_entries" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"entry_number" text NOT NULL,
	"competence_date" date NOT NULL,
	"description" text NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"total_cents" bigint NOT NULL,
	"reverses_id" char(24),
	"reversed_by_id" char(24),
	"reversal_reason" text,
	"source_type" text,
	"source_id" text,
	"created_by" char(24),
	"posted_at" timestamp with time zone,
	"posted_by" char(24),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "journal_entries_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "journal_lines" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"entry_id" char(24) NOT NULL,
	"line_no" integer NOT NULL,
	"account_id" char(24) NOT NULL,
	"account_code" text NOT NULL,
	"account_name" text NOT NULL,
	"debit_cents" bigint DEFAULT 0 NOT NULL,
	"credit_cents" bigint DEFAULT 0 NOT NULL,
	"memo" text,
	CONSTRAINT "journal_lines_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "period_closings" (
	"tenant_id" char(24) NOT NULL,
	"year" integer NOT NULL,
	"month" integer NOT NULL,
	"status" text NOT NULL,
	"trial_balance_snapshot" jsonb NOT NULL,
	"closed_at" timestamp with time zone NOT NULL,
	"closed_by" char(24),
	"reopened_at" timestamp with time zone,
	"reopened_by" char(24),
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "period_closings_tenant_id_year_month_pk" PRIMARY KEY("tenant_id","year","month")
);
--> statement-breakpoint
CREATE TABLE "system_accounts" (
	"id" char(24) NOT NULL,
	"code" text NOT NULL,
	"name" text NOT NULL,
	"nature" text NOT NULL,
	"type" text NOT NULL,
	"normal_balance" text NOT NULL,
	"parent_id" char(24),
	"dre_group" text,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "system_accounts_id_pk" PRIMARY KEY("id")
);
--> statement-breakpoint
ALTER TABLE "chart_accounts" ADD CONSTRAINT "chart_accounts_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journal_counters" ADD CONSTRAINT "journal_counters_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journal_entries" ADD CONSTRAINT "journal_entries_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "journal_lines" ADD CONSTRAINT "journal_lines_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "period_closings" ADD CONSTRAINT "period_closings_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "chart_accounts_code_key" ON "chart_accounts" USING btree ("tenant_id","code");--> statement-breakpoint
CREATE UNIQUE INDEX "journal_entries_number_key" ON "journal_entries" USING btree ("tenant_id","entry_number");--> statement-breakpoint
CREATE UNIQUE INDEX "journal_entries_source_key" ON "journal_entries" USING btree ("tenant_id","source_type","source_id") WHERE "journal_entries"."source_type" is not null;--> statement-breakpoint
CREATE INDEX "journal_entries_date_idx" ON "journal_entries" USING btree ("tenant_id","competence_date");--> statement-breakpoint
CREATE INDEX "journal_lines_entry_idx" ON "journal_lines" USING btree ("tenant_id","entry_id");--> statement-breakpoint
CREATE INDEX "journal_lines_account_idx" ON "journal_lines" USING btree ("tenant_id","account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "system_accounts_code_key" ON "system_accounts" USING btree ("code");--> statement-breakpoint
SELECT enable_tenant_isolation('chart_accounts');--> statement-breakpoint
SELECT enable_tenant_isolation('journal_entries');--> statement-breakpoint
SELECT enable_tenant_isolation('journal_lines');--> statement-breakpoint
SELECT enable_tenant_isolation('journal_counters');--> statement-breakpoint
SELECT enable_tenant_isolation('period_closings');--> statement-breakpoint
-- The system chart is shared: every tenant reads it, only the owner (the superadmin's seed, through the bypass) writes it.
GRANT SELECT ON "system_accounts" TO app_tenant;--> statement-breakpoint
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON "system_accounts" FROM app_tenant;--> statement-breakpoint
ALTER TABLE "journal_lines" ADD CONSTRAINT "journal_lines_amount_check" CHECK ("debit_cents" >= 0 AND "credit_cents" >= 0 AND ("debit_cents" = 0) <> ("credit_cents" = 0));--> statement-breakpoint
ALTER TABLE "journal_entries" ADD CONSTRAINT "journal_entries_total_check" CHECK ("total_cents" > 0);--> statement-breakpoint
ALTER TABLE "period_closings" ADD CONSTRAINT "period_closings_month_check" CHECK ("month" BETWEEN 1 AND 12 AND "year" BETWEEN 2000 AND 2099);
