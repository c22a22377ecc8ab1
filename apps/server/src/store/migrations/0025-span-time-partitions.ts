import { type Migration, sql } from "kysely";
import type { Dialect } from "../dialect.ts";
import {
  defaultPartition,
  nameIndexes,
  PARTITIONED_TABLES,
  type PartitionedTable,
  partitionName,
  SPAN_PARTITION_MS,
} from "../span-partitions.ts";
import type { AnyDb } from "./any-db.ts";

/** Each partitioned table's key and indexes (migrations 0002, 0005, 0006 and 0022), built again after the copy. */
const SHAPES: Record<
  PartitionedTable,
  { key: [name: string, columns: string[]]; indexes: [name: string, columns: string[], optional?: string][] }
> = {
  logSpans: {
    key: ["logSpans_pkey", ["id", "startedAt"]],
    indexes: [
      ["logSpansByTime", ["projectId", "startedAt", "id"]],
      ["logSpansByPrompt", ["projectId", "promptId", "startedAt", "id"], "promptId"],
      ["logSpansByStatus", ["projectId", "status", "startedAt", "id"]],
      ["logSpansBySession", ["projectId", "sessionId", "startedAt", "id"], "sessionId"],
      ["logSpansByReference", ["projectId", "referenceId", "startedAt", "id"], "referenceId"],
      ["logSpansByTrace", ["traceId", "startedAt", "id"]],
      ["logSpansByTraceReference", ["traceId", "referenceId"], "referenceId"],
    ],
  },
  logAttributes: {
    key: ["logAttributesKey", ["projectId", "ownerKind", "key", "startedAt", "ownerId"]],
    indexes: [
      ["logAttributesByTextValue", ["projectId", "ownerKind", "key", "textValue", "startedAt", "ownerId"], "textValue"],
    ],
  },
  logTags: { key: ["logTagsKey", ["projectId", "ownerKind", "tag", "startedAt", "ownerId"]], indexes: [] },
};

/** The indexes the tables had before (dropped with the old tables' names freed for the new ones). */
const OLD_INDEXES = [
  "logSpansByTime",
  "logSpansByPrompt",
  "logSpansByStatus",
  "logSpansBySession",
  "logSpansByReference",
  "logSpansByTrace",
  "logSpansUniqueReference",
  "logAttributesByTextValue",
];

/**
 * PostgreSQL stores spans and their attribute and tag rows in time partitions (ADR 0027): `logSpans`,
 * `logAttributes` and `logTags` become tables partitioned by RANGE ("startedAt"), alike — one partition per UTC
 * day that holds rows plus a DEFAULT partition (so a write with any startedAt lands somewhere) — and retention
 * drops a day whose rows have all expired instead of deleting them row by row. A partitioned table's unique
 * keys must include the partition key, so:
 * - the spans' primary key becomes (id, startedAt) (span ids are generated unique); the side rows' keys hold
 *   startedAt already (migration 0006);
 * - scores.spanId loses its foreign key (a foreign key needs a unique key of the referenced columns): a span's
 *   scores still go with its trace (scores.traceId cascades), and retention deletes the scores of the spans it
 *   drops;
 * - logSpans.traceId loses its foreign key to logTraces: deleting a trace would probe every partition for its
 *   spans (the cascade knows no startedAt), which made deleting 1,000 expired traces take 2.6 × as long with a
 *   month of days, and more with every day. Spans are written only under a lock on their existing trace row and
 *   deleted by retention before their traces (which it locks too), so no span is left without its trace;
 * - the unique (traceId, referenceId) index becomes a plain index: a span write checks the trace's
 *   referenceIds itself, under the lock it holds on the trace row.
 * The rows are copied into the new tables and the indexes built after the copy. SQLite keeps its tables.
 */
export const spanTimePartitions: (dialect: Dialect) => Migration = (dialect) => ({
  async up(db: AnyDb) {
    if (dialect !== "postgres") return;
    const old = (table: PartitionedTable) => `${table}Unpartitioned`;
    await sql`alter table "scores" drop constraint "scores_spanId_fkey"`.execute(db);
    await sql`drop statistics "logSpansLowerName"`.execute(db);
    for (const index of OLD_INDEXES) await db.schema.dropIndex(index).execute();
    for (const table of PARTITIONED_TABLES) {
      const key = SHAPES[table].key[0];
      await sql`alter table ${sql.table(table)} rename to ${sql.table(old(table))}`.execute(db);
      await sql`alter table ${sql.table(old(table))} rename constraint ${sql.id(key)} to ${sql.id(`${key}Old`)}`.execute(
        db,
      );
    }

    // The days that hold rows, in any of the three tables: each table gets all of them.
    const { rows: days } = await sql<{ day: number }>`
      select distinct floor("startedAt"::numeric / ${SPAN_PARTITION_MS})::bigint as day from (
        ${sql.join(
          PARTITIONED_TABLES.map((table) => sql`select "startedAt" from ${sql.table(old(table))}`),
          sql` union all `,
        )}
      ) rows order by day`.execute(db);
    for (const table of PARTITIONED_TABLES) {
      const [keyName, keyColumns] = SHAPES[table].key;
      await sql`create table ${sql.table(table)} (like ${sql.table(old(table))} including defaults)
        partition by range ("startedAt")`.execute(db);
      await sql`alter table ${sql.table(table)} add constraint ${sql.id(keyName)}
        primary key (${sql.join(keyColumns.map((column) => sql.ref(column)))})`.execute(db);
      const partitions = [defaultPartition(table)];
      await sql`create table ${sql.table(defaultPartition(table))} partition of ${sql.table(table)} default`.execute(
        db,
      );
      for (const { day } of days) {
        const from = Number(day) * SPAN_PARTITION_MS;
        partitions.push(partitionName(from, table));
        await sql`create table ${sql.table(partitionName(from, table))} partition of ${sql.table(table)}
          for values from (${sql.lit(from)}) to (${sql.lit(from + SPAN_PARTITION_MS)})`.execute(db);
      }
      await sql`insert into ${sql.table(table)} select * from ${sql.table(old(table))}`.execute(db);
      await db.schema.dropTable(old(table)).execute();
      for (const [name, columns, optional] of SHAPES[table].indexes) {
        const index = db.schema.createIndex(name).on(table).columns(columns);
        await (optional ? index.where(sql.ref(optional), "is not", null) : index).execute();
      }
      for (const partition of partitions) await nameIndexes(db, table, partition);
      if (table === "logSpans") {
        // As migration 0004, for each partition (the planner reads a partition's own statistics when it plans
        // its scan; autovacuum analyzes partitions, never the partitioned table) and for the table as a whole.
        for (const partition of partitions) {
          await sql`create statistics ${sql.id(`${partition}LowerName`)} on (lower(name))
            from ${sql.table(partition)}`.execute(db);
        }
        await sql`create statistics "logSpansLowerName" on (lower(name)) from "logSpans"`.execute(db);
      }
      await sql`analyze ${sql.table(table)}`.execute(db);
    }
  },
});
