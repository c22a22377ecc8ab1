import type { Migration } from "kysely";
import type { AnyDb } from "./any-db.ts";

/**
 * Per-project masking rules (JSON text of the contract's MaskingRule array, applied to log writes before they
 * are stored) and retention (days to keep logs; null = forever). On `projects`, a cached table: every log
 * write reads them with the project it already reads from the cache, and a change to them bumps the cache
 * generation (migration 0007), so every server applies new rules from its next request on.
 */
export const maskingAndRetention: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .alterTable("projects")
      .addColumn("maskingRules", "text", (c) => c.notNull().defaultTo("[]"))
      .execute();
    await db.schema.alterTable("projects").addColumn("retentionDays", "integer").execute();
  },
};
