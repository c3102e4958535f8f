DROP INDEX "journal_lines_entry_idx";--> statement-breakpoint
CREATE INDEX "journal_lines_entry_idx" ON "journal_lines" USING btree ("tenant_id","entry_id","account_id","debit_cents","credit_cents");