CREATE TABLE "branches" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"is_hq" boolean DEFAULT false NOT NULL,
	"cnpj" text,
	"address" text,
	"city" text,
	"state" text,
	"cep" text,
	"ibs_cbs_enabled" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "branches_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "pdvs" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"branch_id" char(24) NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"service_mode" text DEFAULT 'balcao' NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"gateway_a_terminal_serial" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "pdvs_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "order_counters" (
	"tenant_id" char(24) NOT NULL,
	"day" date NOT NULL,
	"last" integer NOT NULL,
	CONSTRAINT "order_counters_tenant_id_day_pk" PRIMARY KEY("tenant_id","day")
);
--> statement-breakpoint
CREATE TABLE "orders" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"order_number" text NOT NULL,
	"source" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"type" text NOT NULL,
	"table_id" char(24),
	"pdv_id" char(24),
	"items" jsonb NOT NULL,
	"total" bigint NOT NULL,
	"customer_name" text,
	"customer_phone" text,
	"customer_email" text,
	"payment_method" text,
	"is_tab" boolean DEFAULT false NOT NULL,
	"is_split_bill" boolean DEFAULT false NOT NULL,
	"split_bill_reference" text,
	"pix_payload" text,
	"pix_qr_code_base64" text,
	"payment_gateway" text,
	"payment_transaction_id" text,
	"payment_intent_id" text,
	"payment_status" text,
	"payment_attempts" integer DEFAULT 0 NOT NULL,
	"payment_started_at" timestamp with time zone,
	"paid_at" timestamp with time zone,
	"receipt_token" text,
	"receipt_expires_at" timestamp with time zone,
	"created_by" char(24),
	"closed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "orders_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"scope" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"state" text NOT NULL,
	"response_status" integer,
	"response_body" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "idempotency_keys_scope_key_pk" PRIMARY KEY("scope","key")
);
--> statement-breakpoint
ALTER TABLE "branches" ADD CONSTRAINT "branches_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pdvs" ADD CONSTRAINT "pdvs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pdvs" ADD CONSTRAINT "pdvs_branch_fk" FOREIGN KEY ("tenant_id","branch_id") REFERENCES "public"."branches"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_counters" ADD CONSTRAINT "order_counters_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_table_fk" FOREIGN KEY ("tenant_id","table_id") REFERENCES "public"."dining_tables"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_pdv_fk" FOREIGN KEY ("tenant_id","pdv_id") REFERENCES "public"."pdvs"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "branches_slug_key" ON "branches" USING btree ("tenant_id","slug");--> statement-breakpoint
CREATE UNIQUE INDEX "pdvs_slug_key" ON "pdvs" USING btree ("tenant_id","slug");--> statement-breakpoint
CREATE INDEX "pdvs_branch_idx" ON "pdvs" USING btree ("tenant_id","branch_id");--> statement-breakpoint
CREATE UNIQUE INDEX "orders_number_key" ON "orders" USING btree ("tenant_id","order_number");--> statement-breakpoint
CREATE UNIQUE INDEX "orders_receipt_token_key" ON "orders" USING btree ("tenant_id","receipt_token");--> statement-breakpoint
CREATE INDEX "orders_payment_intent_idx" ON "orders" USING btree ("payment_intent_id");--> statement-breakpoint
CREATE UNIQUE INDEX "orders_open_tab_key" ON "orders" USING btree ("tenant_id","table_id") WHERE "orders"."is_tab" and "orders"."status" not in ('delivered', 'cancelled');--> statement-breakpoint
CREATE INDEX "orders_created_idx" ON "orders" USING btree ("tenant_id","created_at");--> statement-breakpoint
CREATE INDEX "orders_status_idx" ON "orders" USING btree ("tenant_id","status","created_at");