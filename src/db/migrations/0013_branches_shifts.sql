CREATE TABLE "cash_movements" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"shift_id" char(24) NOT NULL,
	"kind" text NOT NULL,
	"amount" bigint NOT NULL,
	"reason" text NOT NULL,
	"created_by" char(24) NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cash_movements_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "shifts" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"branch_id" char(24) NOT NULL,
	"pdv_id" char(24) NOT NULL,
	"user_id" char(24) NOT NULL,
	"opened_by" char(24) NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"opening_float" bigint NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"closed_at" timestamp with time zone,
	"closed_by" char(24),
	"counted" jsonb,
	"expected" jsonb,
	"difference" jsonb,
	"closing_notes" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "shifts_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "require_shift" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "reservations" ADD COLUMN "table_id" char(24);--> statement-breakpoint
ALTER TABLE "reservations" ADD COLUMN "duration_minutes" integer DEFAULT 120 NOT NULL;--> statement-breakpoint
ALTER TABLE "reservations" ADD COLUMN "order_id" char(24);--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "shift_id" char(24);--> statement-breakpoint
ALTER TABLE "payments" ADD COLUMN "shift_id" char(24);--> statement-breakpoint
ALTER TABLE "cash_movements" ADD CONSTRAINT "cash_movements_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "cash_movements" ADD CONSTRAINT "cash_movements_shift_fk" FOREIGN KEY ("tenant_id","shift_id") REFERENCES "public"."shifts"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shifts" ADD CONSTRAINT "shifts_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shifts" ADD CONSTRAINT "shifts_pdv_fk" FOREIGN KEY ("tenant_id","pdv_id") REFERENCES "public"."pdvs"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "shifts" ADD CONSTRAINT "shifts_branch_fk" FOREIGN KEY ("tenant_id","branch_id") REFERENCES "public"."branches"("tenant_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "cash_movements_shift_idx" ON "cash_movements" USING btree ("tenant_id","shift_id");--> statement-breakpoint
CREATE UNIQUE INDEX "shifts_one_open_per_pdv" ON "shifts" USING btree ("tenant_id","pdv_id") WHERE "shifts"."status" = 'open';--> statement-breakpoint
CREATE INDEX "shifts_branch_idx" ON "shifts" USING btree ("tenant_id","branch_id","started_at");--> statement-breakpoint
CREATE INDEX "reservations_table_idx" ON "reservations" USING btree ("tenant_id","table_id","date");--> statement-breakpoint
CREATE UNIQUE INDEX "branches_hq_key" ON "branches" USING btree ("tenant_id") WHERE "branches"."is_hq";--> statement-breakpoint
CREATE UNIQUE INDEX "pdvs_terminal_key" ON "pdvs" USING btree ("gateway_a_terminal_serial");--> statement-breakpoint
CREATE INDEX "orders_shift_idx" ON "orders" USING btree ("tenant_id","shift_id");--> statement-breakpoint
CREATE INDEX "orders_paid_idx" ON "orders" USING btree ("tenant_id","paid_at");--> statement-breakpoint
CREATE INDEX "payments_shift_idx" ON "payments" USING btree ("tenant_id","shift_id");--> statement-breakpoint
CREATE INDEX "payments_settled_idx" ON "payments" USING btree ("tenant_id","settled_at");--> statement-breakpoint
SELECT enable_tenant_isolation('shifts');--> statement-breakpoint
SELECT enable_tenant_isolation('cash_movements');--> statement-breakpoint
ALTER TABLE "shifts" ADD CONSTRAINT "shifts_status_check" CHECK ("status" in ('open', 'closed'));--> statement-breakpoint
ALTER TABLE "shifts" ADD CONSTRAINT "shifts_opening_float_check" CHECK ("opening_float" >= 0);--> statement-breakpoint
ALTER TABLE "cash_movements" ADD CONSTRAINT "cash_movements_kind_check" CHECK ("kind" in ('withdrawal', 'addition'));--> statement-breakpoint
ALTER TABLE "cash_movements" ADD CONSTRAINT "cash_movements_amount_check" CHECK ("amount" > 0);--> statement-breakpoint
-- A tenant with branches and no headquarters: its oldest branch is.
UPDATE "branches" b SET "is_hq" = true
WHERE NOT EXISTS (SELECT 1 FROM "branches" h WHERE h."tenant_id" = b."tenant_id" AND h."is_hq")
  AND b."id" = (SELECT o."id" FROM "branches" o WHERE o."tenant_id" = b."tenant_id" ORDER BY o."created_at", o."id" LIMIT 1);
