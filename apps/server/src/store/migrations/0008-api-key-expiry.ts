import type { Migration } from "kysely";
import type { AnyDb } from "./any-db.ts";

/**
 * API keys may expire (`expiresAt`, Unix ms, null = never), and the time a key was last used is kept. The latter
 * in a table of its own: `apiKeys` is a cached table whose every change bumps the read cache's generation
 * (migration 0007), and a key in use is marked at most once a minute, which would empty the cache as often.
 */
export const apiKeyExpiry: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable("apiKeys").addColumn("expiresAt", "bigint").execute();
    await db.schema
      .createTable("apiKeyUsage")
      .addColumn("keyId", "text", (c) => c.primaryKey().references("apiKeys.id").onDelete("cascade"))
      .addColumn("lastUsedAt", "bigint", (c) => c.notNull())
      .execute();
  },
};
