CREATE TABLE "imported_invoices" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"nfe_key" char(44) NOT NULL,
	"nfe_number" text NOT NULL,
	"emitter_cnpj" text NOT NULL,
	"emitter_name" text NOT NULL,
	"supplier_id" char(24),
	"total_cents" bigint NOT NULL,
	"items_count" integer NOT NULL,
	"summary" jsonb NOT NULL,
	"imported_by" char(24),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "imported_invoices_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "purchase_order_counters" (
	"tenant_id" char(24) NOT NULL,
	"day" date NOT NULL,
	"last" integer NOT NULL,
	CONSTRAINT "purchase_order_counters_tenant_id_day_pk" PRIMARY KEY("tenant_id","day")
);
--> statement-breakpoint
CREATE TABLE "purchase_orders" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"order_number" text NOT NULL,
	"supplier_id" char(24),
	"items" jsonb NOT NULL,
	"total_cost_cents" bigint NOT NULL,
	"expected_delivery" date,
	"notes" text,
	"status" text DEFAULT 'draft' NOT NULL,
	"suggestion_id" char(24),
	"created_by" char(24),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "purchase_orders_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "sales_snapshots" (
	"tenant_id" char(24) NOT NULL,
	"day" date NOT NULL,
	"menu_item_id" char(24) NOT NULL,
	"quantity_milli" bigint NOT NULL,
	"orders" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sales_snapshots_tenant_id_day_menu_item_id_pk" PRIMARY KEY("tenant_id","day","menu_item_id")
);
--> statement-breakpoint
CREATE TABLE "suggested_purchase_orders" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"horizon_days" integer NOT NULL,
	"items" jsonb NOT NULL,
	"total_cost_cents" bigint NOT NULL,
	"purchase_order_id" char(24),
	"decided_by" char(24),
	"decided_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "suggested_purchase_orders_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "supplier_item_mappings" (
	"tenant_id" char(24) NOT NULL,
	"supplier_cnpj" text NOT NULL,
	"supplier_code" text NOT NULL,
	"item_id" char(24) NOT NULL,
	"factor_milli" bigint DEFAULT 1000 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "supplier_item_mappings_tenant_id_supplier_cnpj_supplier_code_pk" PRIMARY KEY("tenant_id","supplier_cnpj","supplier_code")
);
--> statement-breakpoint
CREATE TABLE "suppliers" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"name" text NOT NULL,
	"cnpj" text,
	"email" text,
	"phone" text,
	"contact_name" text,
	"address" text,
	"categories" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"notes" text,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "suppliers_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "imported_invoices" ADD CONSTRAINT "imported_invoices_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "purchase_order_counters" ADD CONSTRAINT "purchase_order_counters_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "purchase_orders" ADD CONSTRAINT "purchase_orders_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sales_snapshots" ADD CONSTRAINT "sales_snapshots_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "suggested_purchase_orders" ADD CONSTRAINT "suggested_purchase_orders_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "supplier_item_mappings" ADD CONSTRAINT "supplier_item_mappings_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "suppliers" ADD CONSTRAINT "suppliers_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "imported_invoices_key" ON "imported_invoices" USING btree ("tenant_id","nfe_key");--> statement-breakpoint
CREATE UNIQUE INDEX "purchase_orders_number_key" ON "purchase_orders" USING btree ("tenant_id","order_number");--> statement-breakpoint
CREATE INDEX "sales_snapshots_item_idx" ON "sales_snapshots" USING btree ("tenant_id","menu_item_id","day");--> statement-breakpoint
CREATE INDEX "suggested_purchase_orders_created_idx" ON "suggested_purchase_orders" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "suppliers_cnpj_idx" ON "suppliers" USING btree ("tenant_id","cnpj");--> statement-breakpoint
SELECT enable_tenant_isolation('suppliers');--> statement-breakpoint
SELECT enable_tenant_isolation('purchase_orders');--> statement-breakpoint
SELECT enable_tenant_isolation('purchase_order_counters');--> statement-breakpoint
SELECT enable_tenant_isolation('suggested_purchase_orders');--> statement-breakpoint
SELECT enable_tenant_isolation('sales_snapshots');--> statement-breakpoint
SELECT enable_tenant_isolation('imported_invoices');--> statement-breakpoint
SELECT enable_tenant_isolation('supplier_item_mappings');--> statement-breakpoint
ALTER TABLE "purchase_orders" ADD CONSTRAINT "purchase_orders_total_check" CHECK ("total_cost_cents" >= 0);--> statement-breakpoint
ALTER TABLE "sales_snapshots" ADD CONSTRAINT "sales_snapshots_quantity_check" CHECK ("quantity_milli" >= 0 AND "orders" >= 0);--> statement-breakpoint
ALTER TABLE "supplier_item_mappings" ADD CONSTRAINT "supplier_item_mappings_factor_check" CHECK ("factor_milli" > 0);
