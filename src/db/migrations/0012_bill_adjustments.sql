ALTER TABLE "tenants" ADD COLUMN "service_charge_bp" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "cover_charge" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "tenants" ADD COLUMN "discount_limit_bp" integer DEFAULT 1000 NOT NULL;--> statement-breakpoint
ALTER TABLE "menu_items" ADD COLUMN "unit" text DEFAULT 'un' NOT NULL;--> statement-breakpoint
ALTER TABLE "pdvs" ADD COLUMN "service_charge_bp" integer;--> statement-breakpoint
ALTER TABLE "pdvs" ADD COLUMN "cover_charge" bigint;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "items_total" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "discount_total" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "order_discount" jsonb;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "service_charge_bp" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "service_charge_removed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "service_charge" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "covers" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "cover_charge_unit" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "cover_charge" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "rounding" jsonb;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "adjustments" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "menu_items" ADD CONSTRAINT "menu_items_unit_check" CHECK ("unit" in ('un', 'kg'));--> statement-breakpoint
-- Orders written before the bill had parts: the lines were the whole total.
UPDATE "orders" SET "items_total" = "total";
