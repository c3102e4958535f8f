CREATE TABLE "branch_stock" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"item_id" char(24) NOT NULL,
	"pdv_id" char(24) NOT NULL,
	"physical_milli" bigint DEFAULT 0 NOT NULL,
	"reserved_milli" bigint DEFAULT 0 NOT NULL,
	"min_milli" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "branch_stock_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "inventory_items" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"name" text NOT NULL,
	"sku" text NOT NULL,
	"ean" text,
	"unit" text NOT NULL,
	"pack_size_milli" bigint,
	"physical_milli" bigint DEFAULT 0 NOT NULL,
	"reserved_milli" bigint DEFAULT 0 NOT NULL,
	"min_milli" bigint DEFAULT 0 NOT NULL,
	"cost_cents" bigint DEFAULT 0 NOT NULL,
	"expiration_date" date,
	"status" text DEFAULT 'active' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone,
	CONSTRAINT "inventory_items_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "inventory_movements" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"item_id" char(24) NOT NULL,
	"pdv_id" char(24),
	"type" text NOT NULL,
	"reason" text NOT NULL,
	"quantity_milli" bigint NOT NULL,
	"delta_milli" bigint NOT NULL,
	"before_milli" bigint NOT NULL,
	"after_milli" bigint NOT NULL,
	"unit_cost_cents" bigint,
	"order_id" char(24),
	"label_id" char(24),
	"transfer_id" char(24),
	"notes" text,
	"created_by" char(24),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "inventory_movements_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "label_tokens" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"token" uuid NOT NULL,
	"item_id" char(24) NOT NULL,
	"pdv_id" char(24),
	"quantity_milli" bigint NOT NULL,
	"reason" text NOT NULL,
	"notes" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"created_by" char(24) NOT NULL,
	"used_at" timestamp with time zone,
	"movement_id" char(24),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "label_tokens_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "order_stock" (
	"tenant_id" char(24) NOT NULL,
	"order_id" char(24) NOT NULL,
	"item_id" char(24) NOT NULL,
	"place" text NOT NULL,
	"deducted_milli" bigint NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "order_stock_tenant_id_order_id_item_id_place_pk" PRIMARY KEY("tenant_id","order_id","item_id","place")
);
--> statement-breakpoint
CREATE TABLE "product_ingredients" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"menu_item_id" char(24) NOT NULL,
	"item_id" char(24) NOT NULL,
	"quantity_milli" bigint NOT NULL,
	"unit" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "product_ingredients_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "stock_alerts" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"item_id" char(24) NOT NULL,
	"item_name" text NOT NULL,
	"pdv_id" char(24),
	"pdv_name" text,
	"available_milli" bigint NOT NULL,
	"min_milli" bigint NOT NULL,
	"expires_at" timestamp with time zone,
	"read_by" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"resolved_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "stock_alerts_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "branch_stock" ADD CONSTRAINT "branch_stock_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "branch_stock" ADD CONSTRAINT "branch_stock_item_fk" FOREIGN KEY ("tenant_id","item_id") REFERENCES "public"."inventory_items"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "branch_stock" ADD CONSTRAINT "branch_stock_pdv_fk" FOREIGN KEY ("tenant_id","pdv_id") REFERENCES "public"."pdvs"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inventory_items" ADD CONSTRAINT "inventory_items_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inventory_movements" ADD CONSTRAINT "inventory_movements_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inventory_movements" ADD CONSTRAINT "inventory_movements_item_fk" FOREIGN KEY ("tenant_id","item_id") REFERENCES "public"."inventory_items"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "label_tokens" ADD CONSTRAINT "label_tokens_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "label_tokens" ADD CONSTRAINT "label_tokens_item_fk" FOREIGN KEY ("tenant_id","item_id") REFERENCES "public"."inventory_items"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_stock" ADD CONSTRAINT "order_stock_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_ingredients" ADD CONSTRAINT "product_ingredients_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "product_ingredients" ADD CONSTRAINT "product_ingredients_item_fk" FOREIGN KEY ("tenant_id","item_id") REFERENCES "public"."inventory_items"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "stock_alerts" ADD CONSTRAINT "stock_alerts_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "branch_stock_item_pdv_key" ON "branch_stock" USING btree ("tenant_id","item_id","pdv_id");--> statement-breakpoint
CREATE INDEX "branch_stock_pdv_idx" ON "branch_stock" USING btree ("tenant_id","pdv_id");--> statement-breakpoint
CREATE UNIQUE INDEX "inventory_items_sku_key" ON "inventory_items" USING btree ("tenant_id","sku") WHERE "inventory_items"."deleted_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "inventory_items_ean_key" ON "inventory_items" USING btree ("tenant_id","ean") WHERE "inventory_items"."deleted_at" is null and "inventory_items"."ean" is not null;--> statement-breakpoint
CREATE INDEX "inventory_movements_item_idx" ON "inventory_movements" USING btree ("tenant_id","item_id","created_at");--> statement-breakpoint
CREATE INDEX "inventory_movements_order_idx" ON "inventory_movements" USING btree ("tenant_id","order_id");--> statement-breakpoint
CREATE UNIQUE INDEX "label_tokens_token_key" ON "label_tokens" USING btree ("token");--> statement-breakpoint
CREATE UNIQUE INDEX "product_ingredients_pair_key" ON "product_ingredients" USING btree ("tenant_id","menu_item_id","item_id");--> statement-breakpoint
CREATE UNIQUE INDEX "stock_alerts_open_key" ON "stock_alerts" USING btree ("tenant_id","item_id",coalesce("pdv_id", '')) WHERE "stock_alerts"."resolved_at" is null;--> statement-breakpoint
CREATE INDEX "stock_alerts_created_idx" ON "stock_alerts" USING btree ("tenant_id","created_at");--> statement-breakpoint
SELECT enable_tenant_isolation('inventory_items');--> statement-breakpoint
SELECT enable_tenant_isolation('branch_stock');--> statement-breakpoint
SELECT enable_tenant_isolation('inventory_movements');--> statement-breakpoint
SELECT enable_tenant_isolation('product_ingredients');--> statement-breakpoint
SELECT enable_tenant_isolation('stock_alerts');--> statement-breakpoint
SELECT enable_tenant_isolation('label_tokens');--> statement-breakpoint
SELECT enable_tenant_isolation('order_stock');--> statement-breakpoint
ALTER TABLE "inventory_items" ADD CONSTRAINT "inventory_items_quantities_check" CHECK ("physical_milli" >= 0 AND "reserved_milli" >= 0 AND "min_milli" >= 0 AND "cost_cents" >= 0 AND ("pack_size_milli" IS NULL OR "pack_size_milli" > 0));--> statement-breakpoint
ALTER TABLE "branch_stock" ADD CONSTRAINT "branch_stock_quantities_check" CHECK ("physical_milli" >= 0 AND "reserved_milli" >= 0 AND ("min_milli" IS NULL OR "min_milli" >= 0));--> statement-breakpoint
ALTER TABLE "inventory_movements" ADD CONSTRAINT "inventory_movements_quantity_check" CHECK ("quantity_milli" >= 0 AND "after_milli" = "before_milli" + "delta_milli");--> statement-breakpoint
ALTER TABLE "product_ingredients" ADD CONSTRAINT "product_ingredients_quantity_check" CHECK ("quantity_milli" >= 1);--> statement-breakpoint
ALTER TABLE "label_tokens" ADD CONSTRAINT "label_tokens_quantity_check" CHECK ("quantity_milli" >= 1);
