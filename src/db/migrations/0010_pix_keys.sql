ALTER TABLE "tenants" ADD COLUMN "pix_key" text;--> statement-breakpoint
ALTER TABLE "pdvs" ADD COLUMN "pix_key" text;