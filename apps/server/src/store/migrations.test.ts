/**
 * Migrations that reshape tables holding data keep every row: a database at the earlier migration, with
 * rows, is migrated to the latest.
 */
import { Migrator, sql } from "kysely";
import { describe, expect, it } from "vitest";
import { adapters } from "../testing/harness.ts";
import { migrations } from "./migrations/index.ts";
import type { Database } from "./schema.ts";

const attributes: Database["logAttributes"][] = [
  {
    projectId: "p",
    ownerKind: "trace",
    ownerId: "t1",
    key: "plan",
    textValue: "pro",
    numberValue: null,
    booleanValue: null,
    startedAt: 10,
  },
  {
    projectId: "p",
    ownerKind: "trace",
    ownerId: "t1",
    key: "n",
    textValue: null,
    numberValue: 2.5,
    booleanValue: null,
    startedAt: 10,
  },
  {
    projectId: "p",
    ownerKind: "span",
    ownerId: "s1",
    key: "cached",
    textValue: null,
    numberValue: null,
    booleanValue: 1,
    startedAt: 11,
  },
];
const tags: Database["logTags"][] = [
  { projectId: "p", ownerKind: "trace", ownerId: "t1", tag: "production", startedAt: 10 },
  { projectId: "p", ownerKind: "span", ownerId: "s1", tag: "production", startedAt: 11 },
];

describe.each(adapters.map((adapter) => [adapter.name, adapter] as const))("migrations [%s]", (_, adapter) => {
  it("0006 keys the attribute and tag rows by their search order and keeps them all", async () => {
    const { store, dispose } = await adapter.open();
    try {
      // PostgreSQL: Kysely's migration tables live in the scratch schema, as `migrate()` puts them.
      const schema =
        store.dialect === "postgres"
          ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(store.db)).rows[0]?.schema
          : undefined;
      const migrator = new Migrator({
        db: store.db,
        provider: { getMigrations: async () => migrations(store.dialect) },
        ...(schema && { migrationTableSchema: schema }),
      });
      expect((await migrator.migrateTo("0005-partial-log-indexes")).error).toBeUndefined();
      await store.db.insertInto("logAttributes").values(attributes).execute();
      await store.db.insertInto("logTags").values(tags).execute();

      expect((await migrator.migrateToLatest()).error).toBeUndefined();

      const sorted = <T>(items: T[]) => items.map((item) => JSON.stringify(item)).sort();
      const storedAttributes = await store.db.selectFrom("logAttributes").selectAll().execute();
      expect(sorted(storedAttributes)).toEqual(sorted(attributes));
      expect(sorted(await store.db.selectFrom("logTags").selectAll().execute())).toEqual(sorted(tags));
      // The new key still refuses a second row of an owner's attribute or tag.
      for (const [table, row] of [
        ["logAttributes", attributes[0]],
        ["logTags", tags[0]],
      ] as const) {
        await expect(
          store.db
            .insertInto(table)
            .values(row as never)
            .execute(),
        ).rejects.toSatisfy(store.isUniqueViolation);
      }
    } finally {
      await dispose();
    }
  });
});
