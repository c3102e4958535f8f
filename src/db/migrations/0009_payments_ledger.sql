CREATE TABLE "payments" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"order_id" char(24) NOT NULL,
	"attempt" integer NOT NULL,
	"method" text NOT NULL,
	"gateway" text NOT NULL,
	"amount" bigint NOT NULL,
	"tip" bigint DEFAULT 0 NOT NULL,
	"tendered" bigint,
	"status" text NOT NULL,
	"intent_id" text,
	"transaction_id" text,
	"terminal_serial" text,
	"created_by" char(24),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"settled_at" timestamp with time zone,
	"refund_requested_at" timestamp with time zone,
	"refund_reason" text,
	"refund_id" text,
	"refunded_at" timestamp with time zone,
	CONSTRAINT "payments_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "amount_paid" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "split_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payments" ADD CONSTRAINT "payments_order_fk" FOREIGN KEY ("tenant_id","order_id") REFERENCES "public"."orders"("tenant_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "payments_attempt_key" ON "payments" USING btree ("tenant_id","order_id","attempt");--> statement-breakpoint
CREATE UNIQUE INDEX "payments_one_processing_key" ON "payments" USING btree ("tenant_id","order_id") WHERE "payments"."status" = 'processing';--> statement-breakpoint
CREATE INDEX "payments_intent_idx" ON "payments" USING btree ("intent_id");--> statement-breakpoint
CREATE INDEX "payments_processing_idx" ON "payments" USING btree ("created_at") WHERE "payments"."status" = 'processing';--> statement-breakpoint
CREATE INDEX "payments_refund_pending_idx" ON "payments" USING btree ("refund_requested_at") WHERE "payments"."status" = 'approved' and "payments"."refund_requested_at" is not null;--> statement-breakpoint
SELECT enable_tenant_isolation('payments');
--> statement-breakpoint
-- The ledger of the orders paid before it existed: their one attempt, as the order recorded it.
INSERT INTO "payments" ("tenant_id", "id", "order_id", "attempt", "method", "gateway", "amount", "status",
                        "intent_id", "transaction_id", "terminal_serial", "created_at", "updated_at", "settled_at")
SELECT o."tenant_id", o."id", o."id", o."payment_attempts", coalesce(o."payment_method", 'cash'), coalesce(o."payment_gateway", 'mock'),
       o."total", o."payment_status", o."payment_intent_id", o."payment_transaction_id", o."payment_terminal_serial",
       coalesce(o."payment_started_at", o."created_at"), o."updated_at", o."paid_at"
FROM "orders" o
WHERE o."payment_status" IS NOT NULL AND o."payment_attempts" > 0;
--> statement-breakpoint
UPDATE "orders" SET "amount_paid" = "total" WHERE "payment_status" = 'approved';
