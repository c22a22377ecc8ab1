/**
 * Migrations that reshape tables holding data keep every row: a database at the earlier migration, with
 * rows, is migrated to the latest.
 */
import { Migrator, sql } from "kysely";
import { describe, expect, it } from "vitest";
import { adapters } from "../testing/harness.ts";
import { migrations } from "./migrations/index.ts";
import type { Database } from "./schema.ts";
import { partitionName } from "./span-partitions.ts";
import type { Store } from "./store.ts";

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

/** A migrator of the store's database; on PostgreSQL its tables live in the scratch schema, as `migrate()` puts them. */
async function migratorOf(store: Store): Promise<Migrator> {
  const schema =
    store.dialect === "postgres"
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(store.db)).rows[0]?.schema
      : undefined;
  return new Migrator({
    db: store.db,
    provider: { getMigrations: async () => migrations(store.dialect) },
    ...(schema && { migrationTableSchema: schema }),
  });
}

const DAY = 24 * 60 * 60 * 1000;
/** Spans of two traces over three UTC days (2025-01-01 to 03), one with a referenceId, in a second project too. */
const spanRow = (
  id: string,
  traceId: string,
  projectId: string,
  startedAt: number,
): Omit<Database["logSpans"], "originId"> => ({
  id,
  workspaceId: "w",
  projectId,
  traceId,
  name: `span ${id}`,
  status: "success",
  contentType: "Tool",
  startedAt,
  endedAt: startedAt + 10,
  latency: 10,
  promptId: null,
  deploymentId: null,
  referenceId: id === "s1" ? "ref-1" : null,
  parentReferenceId: null,
  sessionId: null,
  runEvaluation: 0,
  model: null,
  provider: null,
  cost: null,
  promptTokens: null,
  completionTokens: null,
  totalTokens: null,
  content: '{"type":"Tool"}',
  attributes: "{}",
  tags: "[]",
  events: "[]",
  createdAt: startedAt,
  updatedAt: startedAt,
});
const JAN_1 = Date.UTC(2025, 0, 1);
/** Side rows of span s1 (day 1), of trace t2 (day 3) and of span s3 (day 2). */
const sideAttributes: Database["logAttributes"][] = [
  { ...(attributes[2] as Database["logAttributes"]), ownerId: "s1", startedAt: JAN_1 + 1000 },
  { ...(attributes[0] as Database["logAttributes"]), projectId: "q", ownerId: "t2", startedAt: JAN_1 + 2 * DAY + 7 },
];
const sideTags: Database["logTags"][] = [
  { projectId: "p", ownerKind: "span", ownerId: "s3", tag: "production", startedAt: JAN_1 + DAY + 5 },
];
const spans = [
  spanRow("s1", "t1", "p", JAN_1 + 1000),
  spanRow("s2", "t1", "p", JAN_1 + 2000),
  spanRow("s3", "t1", "p", JAN_1 + DAY + 5),
  spanRow("s4", "t2", "q", JAN_1 + 2 * DAY + 7),
];

describe.each(adapters.map((adapter) => [adapter.name, adapter] as const))("migrations [%s]", (_, adapter) => {
  it("0025 moves spans, attribute and tag rows into day partitions on PostgreSQL (SQLite: unchanged), keeping every row", async () => {
    const { store, dispose } = await adapter.open();
    try {
      const migrator = await migratorOf(store);
      expect((await migrator.migrateTo("0022-span-trace-index")).error).toBeUndefined();
      await store.db.insertInto("workspaces").values({ id: "w", name: "w", createdAt: 1, updatedAt: 1 }).execute();
      for (const [project, trace, startedAt] of [
        ["p", "t1", JAN_1 + 1000],
        ["q", "t2", JAN_1 + 2 * DAY + 7],
      ] as const) {
        await sql`insert into "projects" ("id", "workspaceId", "title", "icon", "createdAt", "updatedAt")
          values (${project}, 'w', ${project}, 'x', 1, 1)`.execute(store.db);
        await sql`insert into "logTraces" ("id", "workspaceId", "projectId", "name", "status", "startedAt", "endedAt",
          "latency", "attributes", "tags", "spanIds", "totalCost", "totalInputTokens", "totalOutputTokens",
          "createdAt", "updatedAt")
          values (${trace}, 'w', ${project}, 't', 'success', ${startedAt}, ${startedAt + DAY * 3}, 0, '{}', '[]', '[]', 0, 0,
          0, 1, 1)`.execute(store.db);
      }
      await store.db.insertInto("logSpans").values(spans).execute();
      await store.db.insertInto("logAttributes").values(sideAttributes).execute();
      await store.db.insertInto("logTags").values(sideTags).execute();
      await sql`insert into "scores" ("id", "workspaceId", "projectId", "traceId", "spanId", "name", "dataType",
        "numberValue", "source", "createdAt", "updatedAt")
        values ('score1', 'w', 'p', 't1', 's3', 'thumbs', 'boolean', 1, 'api', 1, 1)`.execute(store.db);

      expect((await migrator.migrateToLatest()).error).toBeUndefined();

      const stored = await store.db.selectFrom("logSpans").selectAll().orderBy("id").execute();
      // Migration 0026 adds the (empty) originId.
      expect(stored).toEqual(spans.map((span) => ({ ...span, originId: null })));
      expect(await store.db.selectFrom("logAttributes").selectAll().orderBy("ownerId").execute()).toEqual(
        sideAttributes,
      );
      expect(await store.db.selectFrom("logTags").selectAll().execute()).toEqual(sideTags);
      expect(await store.db.selectFrom("scores").select(["id", "spanId"]).execute()).toEqual([
        { id: "score1", spanId: "s3" },
      ]);
      if (store.dialect === "postgres") {
        const partitions = await store.spanPartitions?.endingBy(Number.MAX_SAFE_INTEGER);
        expect(partitions).toEqual(
          [0, 1, 2].map((day) => ({
            name: partitionName(JAN_1 + day * DAY),
            from: JAN_1 + day * DAY,
            to: JAN_1 + (day + 1) * DAY,
          })),
        );
        const counts = await sql<{ partition: string; n: number }>`
          select tableoid::regclass::text as partition, count(*)::int as n from "logSpans" group by 1 order by 1`.execute(
          store.db,
        );
        expect(counts.rows).toEqual([
          { partition: '"logSpans_d20250101"', n: 2 },
          { partition: '"logSpans_d20250102"', n: 1 },
          { partition: '"logSpans_d20250103"', n: 1 },
        ]);
        // The attribute and tag rows are partitioned by the same days.
        for (const [table, expected] of [
          [
            "logAttributes",
            [
              { partition: '"logAttributes_d20250101"', n: 1 },
              { partition: '"logAttributes_d20250103"', n: 1 },
            ],
          ],
          ["logTags", [{ partition: '"logTags_d20250102"', n: 1 }]],
        ] as const) {
          const sides = await sql<{ partition: string; n: number }>`
            select tableoid::regclass::text as partition, count(*)::int as n from ${sql.table(table)}
            group by 1 order by 1`.execute(store.db);
          expect(sides.rows).toEqual(expected);
        }
        // Each partition's indexes are named after the table's.
        const indexes = await sql<{ name: string }>`
          select indexname as name from pg_indexes where tablename = 'logSpans_d20250101' order by 1`.execute(store.db);
        expect(indexes.rows.map((row) => row.name)).toEqual([
          "logSpansByOrigin_d20250101",
          "logSpansByPrompt_d20250101",
          "logSpansByReference_d20250101",
          "logSpansBySession_d20250101",
          "logSpansByStatus_d20250101",
          "logSpansByTime_d20250101",
          "logSpansByTraceReference_d20250101",
          "logSpansByTrace_d20250101",
          "logSpans_pkey_d20250101",
        ]);
        // A span of a day without a partition is written (into the DEFAULT one); a duplicate key is refused.
        await store.db
          .insertInto("logSpans")
          .values(spanRow("s5", "t2", "q", JAN_1 + 30 * DAY))
          .execute();
        await expect(
          store.db
            .insertInto("logSpans")
            .values(spans[0] as Database["logSpans"])
            .execute(),
        ).rejects.toSatisfy(store.isUniqueViolation);
      }
    } finally {
      await dispose();
    }
  });

  it("0006 keys the attribute and tag rows by their search order and keeps them all", async () => {
    const { store, dispose } = await adapter.open();
    try {
      const migrator = await migratorOf(store);
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
