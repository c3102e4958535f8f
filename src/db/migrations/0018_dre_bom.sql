CREATE TABLE "cost_centers" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"code" text NOT NULL,
	"name" text NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cost_centers_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "expense_categories" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"code" text NOT NULL,
	"name" text NOT NULL,
	"dre_group" text NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "expense_categories_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "operating_expenses" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"description" text NOT NULL,
	"amount_cents" bigint NOT NULL,
	"competence_date" date NOT NULL,
	"category_id" char(24) NOT NULL,
	"cost_center_id" char(24),
	"receipt_url" text,
	"created_by" char(24),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "operating_expenses_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "system_expense_categories" (
	"id" char(24) NOT NULL,
	"code" text NOT NULL,
	"name" text NOT NULL,
	"dre_group" text NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "system_expense_categories_id_pk" PRIMARY KEY("id")
);
--> statement-breakpoint
CREATE TABLE "bom_indirect_costs" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"menu_item_id" char(24) NOT NULL,
	"type" text NOT NULL,
	"label" text NOT NULL,
	"unit_type" text NOT NULL,
	"value" bigint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "bom_indirect_costs_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
CREATE TABLE "bom_snapshots" (
	"tenant_id" char(24) NOT NULL,
	"id" char(24) NOT NULL,
	"menu_item_id" char(24) NOT NULL,
	"direct_cents" bigint NOT NULL,
	"indirect_cents" bigint NOT NULL,
	"total_cents" bigint NOT NULL,
	"selling_price_cents" bigint NOT NULL,
	"target_margin" bigint,
	"suggested_price_cents" bigint,
	"triggered_by" text NOT NULL,
	"lines" jsonb NOT NULL,
	"indirect" jsonb NOT NULL,
	"created_by" char(24),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "bom_snapshots_tenant_id_id_pk" PRIMARY KEY("tenant_id","id")
);
--> statement-breakpoint
ALTER TABLE "cost_centers" ADD CONSTRAINT "cost_centers_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "expense_categories" ADD CONSTRAINT "expense_categories_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "operating_expenses" ADD CONSTRAINT "operating_expenses_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bom_indirect_costs" ADD CONSTRAINT "bom_indirect_costs_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bom_snapshots" ADD CONSTRAINT "bom_snapshots_tenant_id_tenants_id_fk" FOREIGN KEY ("tenant_id") REFERENCES "public"."tenants"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "cost_centers_code_key" ON "cost_centers" USING btree ("tenant_id","code");--> statement-breakpoint
CREATE UNIQUE INDEX "expense_categories_code_key" ON "expense_categories" USING btree ("tenant_id","code");--> statement-breakpoint
CREATE INDEX "operating_expenses_date_idx" ON "operating_expenses" USING btree ("tenant_id","competence_date");--> statement-breakpoint
CREATE INDEX "operating_expenses_category_idx" ON "operating_expenses" USING btree ("tenant_id","category_id");--> statement-breakpoint
CREATE INDEX "operating_expenses_cost_center_idx" ON "operating_expenses" USING btree ("tenant_id","cost_center_id");--> statement-breakpoint
CREATE UNIQUE INDEX "system_expense_categories_code_key" ON "system_expense_categories" USING btree ("code");--> statement-breakpoint
CREATE INDEX "bom_indirect_costs_item_idx" ON "bom_indirect_costs" USING btree ("tenant_id","menu_item_id");--> statement-breakpoint
CREATE INDEX "bom_snapshots_item_idx" ON "bom_snapshots" USING btree ("tenant_id","menu_item_id","created_at");--> statement-breakpoint
SELECT enable_tenant_isolation('expense_categories');--> statement-breakpoint
SELECT enable_tenant_isolation('cost_centers');--> statement-breakpoint
SELECT enable_tenant_isolation('operating_expenses');--> statement-breakpoint
SELECT enable_tenant_isolation('bom_indirect_costs');--> statement-breakpoint
SELECT enable_tenant_isolation('bom_snapshots');--> statement-breakpoint
-- The system categories are shared: every tenant reads them, nobody but the owner writes them.
GRANT SELECT ON "system_expense_categories" TO app_tenant;--> statement-breakpoint
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON "system_expense_categories" FROM app_tenant;--> statement-breakpoint
ALTER TABLE "operating_expenses" ADD CONSTRAINT "operating_expenses_amount_check" CHECK ("amount_cents" > 0);--> statement-breakpoint
-- The system categories (spec 2: tenant null), one or more per DRE group, seeded once here.
INSERT INTO "system_expense_categories" ("id", "code", "name", "dre_group") VALUES
  ('5eedca7e0000000000000001', 'REV-OUTRAS', 'Outras receitas operacionais', 'revenue'),
  ('5eedca7e0000000000000002', 'DED-IMPOSTOS', 'Impostos sobre vendas', 'revenue_deduction'),
  ('5eedca7e0000000000000003', 'DED-DEVOLUCOES', 'Devoluções e cancelamentos', 'revenue_deduction'),
  ('5eedca7e0000000000000004', 'CMV-INSUMOS', 'Insumos e mercadorias', 'cogs'),
  ('5eedca7e0000000000000005', 'OPEX-ALUGUEL', 'Aluguel e condomínio', 'opex'),
  ('5eedca7e0000000000000006', 'OPEX-PESSOAL', 'Salários e encargos', 'opex'),
  ('5eedca7e0000000000000007', 'OPEX-ENERGIA', 'Energia elétrica', 'opex'),
  ('5eedca7e0000000000000008', 'OPEX-AGUA', 'Água e esgoto', 'opex'),
  ('5eedca7e0000000000000009', 'OPEX-GAS', 'Gás', 'opex'),
  ('5eedca7e0000000000000010', 'OPEX-MARKETING', 'Marketing e publicidade', 'opex'),
  ('5eedca7e0000000000000011', 'OPEX-MANUTENCAO', 'Manutenção e reparos', 'opex'),
  ('5eedca7e0000000000000012', 'OPEX-TAXAS', 'Taxas de cartão e de plataformas de delivery', 'opex'),
  ('5eedca7e0000000000000013', 'OPEX-OUTRAS', 'Outras despesas operacionais', 'opex'),
  ('5eedca7e0000000000000014', 'DA-DEPRECIACAO', 'Depreciação e amortização', 'da'),
  ('5eedca7e0000000000000015', 'FIN-DESPESAS', 'Juros, multas e tarifas bancárias', 'financial')
ON CONFLICT DO NOTHING;
