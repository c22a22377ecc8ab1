/**
 * PostgreSQL's log time partitions (ADR 0027, migration 0025): `logSpans` and the attribute and tag rows
 * (`logAttributes`, `logTags`) are partitioned by RANGE ("startedAt") alike, one partition per UTC day in each
 * plus a DEFAULT partition that takes a row of any day without one (so no write ever fails for its
 * startedAt). This module creates the days ahead of time and drops a day whose rows have all expired; which
 * days and which cutoffs is retention's business (services/retention). SQLite has no partitions: its store has
 * no `spanPartitions`.
 */
import { type Kysely, sql } from "kysely";
import type { AnyDb } from "./migrations/any-db.ts";
import type { Database } from "./schema.ts";
import type { RunInTransaction } from "./transactions.ts";

/** A partition holds one UTC day of start times. */
export const SPAN_PARTITION_MS = 24 * 60 * 60 * 1000;

/** The tables partitioned by day, alike: a day is made and dropped in all three at once. */
export const PARTITIONED_TABLES = ["logSpans", "logAttributes", "logTags"] as const;
export type PartitionedTable = (typeof PARTITIONED_TABLES)[number];

/** The name of `table`'s partition of the day that begins at `from`: `logSpans_d20261128`. */
export function partitionName(from: number, table: PartitionedTable = "logSpans"): string {
  return `${table}_d${new Date(from).toISOString().slice(0, 10).replaceAll("-", "")}`;
}

export const defaultPartition = (table: PartitionedTable) => `${table}_default`;

/** One day: rows with `from` ≤ startedAt < `to`; `name` is its span partition's. */
export interface SpanPartition {
  name: string;
  from: number;
  to: number;
}

export interface SpanPartitions {
  /**
   * Creates the partitions of the days in [from, to) that do not exist yet, moving any rows the DEFAULT
   * partitions hold in a day's range into it. Answers how many days it created; a day it could not lock in time
   * (another replica at the same work, long queries holding the tables) waits for the next call.
   */
  prepare(from: number, to: number): Promise<number>;
  /** The days (never the DEFAULT partitions) that end at or before `end`, oldest first. */
  endingBy(end: number): Promise<SpanPartition[]>;
  /**
   * Drops the day `partition` in every partitioned table when all its rows have expired: each project with
   * spans, attribute or tag rows in it has a cutoff in `cutoffs` at or after the day's end, and no span of it
   * belongs to a trace that started at or after its project's cutoff (a trace is expired by its own
   * startedAt). The scores and queued online evaluations of its spans are deleted in the same transaction,
   * which the DROPs end. Answers how many spans went, or undefined when it was not dropped (not all expired,
   * or not lockable now).
   */
  dropIfExpired(partition: SpanPartition, cutoffs: ReadonlyMap<string, number>): Promise<number | undefined>;
}

/** Lock waits give up after this long: retention retries at its next pass rather than queue requests behind it. */
const LOCK_TIMEOUT = "2s";

/** Thrown inside a transaction to roll it back and answer "not now". */
class NotNow extends Error {}

/**
 * `lock_not_available` (a lock_timeout) and `duplicate_table` (another replica created the day first) are
 * retried at the next pass; deadlocks are retried by `transaction` itself.
 */
const isNotNow = (error: unknown) =>
  error instanceof NotNow || ["55P03", "42P07"].includes((error as { code?: string } | null)?.code ?? "");

export function postgresSpanPartitions(db: Kysely<Database>, transaction: RunInTransaction): SpanPartitions {
  /** Opens a transaction that waits at most LOCK_TIMEOUT for a lock, and only if no other replica does this work. */
  const exclusively = async <T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T | undefined> => {
    try {
      return await transaction(db, async (trx) => {
        await sql`set local lock_timeout = ${sql.lit(LOCK_TIMEOUT)}`.execute(trx);
        // One replica at a time per schema (test runs share a database, each in a schema of its own).
        const { rows } = await sql<{ locked: boolean }>`
          select pg_try_advisory_xact_lock(hashtext(current_schema() || '.log partitions')) as locked`.execute(trx);
        if (!rows[0]?.locked) throw new NotNow();
        return work(trx);
      });
    } catch (error) {
      if (isNotNow(error)) return undefined;
      throw error;
    }
  };

  /** The days, read from the span table's partitions (the others have the same). */
  const list = async (trx: Kysely<Database>): Promise<SpanPartition[]> => {
    const { rows } = await sql<{ name: string; bound: string }>`
      select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
      from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = quote_ident('logSpans')::regclass`.execute(trx);
    const partitions: SpanPartition[] = [];
    for (const { name, bound } of rows) {
      const range = /FROM \('?(-?\d+)'?\) TO \('?(-?\d+)'?\)/.exec(bound);
      if (range) partitions.push({ name, from: Number(range[1]), to: Number(range[2]) });
    }
    return partitions.sort((a, b) => a.from - b.from);
  };

  /** Creates the day at `from` in every partitioned table, with the rows the DEFAULT partitions hold in its range. */
  const create = async (trx: Kysely<Database>, from: number): Promise<true> => {
    const to = from + SPAN_PARTITION_MS;
    const inRange = sql`"startedAt" >= ${from} and "startedAt" < ${to}`;
    for (const table of PARTITIONED_TABLES) {
      const name = partitionName(from, table);
      const fallback = sql.table(defaultPartition(table));
      const { rows } = await sql`select 1 from ${fallback} where ${inRange} limit 1`.execute(trx);
      const moving = `${table}Moving`;
      if (rows.length > 0) {
        // PostgreSQL refuses a partition for rows the DEFAULT partition holds: they move with it. The table is
        // neither read nor written meanwhile (the partition's creation locks it anyway).
        await sql`lock table ${sql.table(table)} in access exclusive mode`.execute(trx);
        await sql`create temporary table ${sql.table(moving)} on commit drop as
          select * from ${fallback} where ${inRange}`.execute(trx);
        await sql`delete from ${fallback} where ${inRange}`.execute(trx);
      }
      await sql`create table ${sql.table(name)} partition of ${sql.table(table)}
        for values from (${sql.lit(from)}) to (${sql.lit(to)})`.execute(trx);
      if (rows.length > 0) await sql`insert into ${sql.table(table)} select * from ${sql.table(moving)}`.execute(trx);
      await nameIndexes(trx, table, name);
      if (table === "logSpans") {
        await sql`create statistics ${sql.id(`${name}LowerName`)} on (lower(name)) from ${sql.table(name)}`.execute(
          trx,
        );
      }
    }
    return true;
  };

  return {
    async prepare(from, to) {
      const first = Math.floor(from / SPAN_PARTITION_MS) * SPAN_PARTITION_MS;
      const existing = new Set((await list(db)).map((partition) => partition.from));
      let created = 0;
      for (let day = first; day < to; day += SPAN_PARTITION_MS) {
        if (existing.has(day)) continue;
        // A transaction per day: a day's locks are held only while that day is made.
        if ((await exclusively((trx) => create(trx, day))) !== undefined) created += 1;
      }
      return created;
    },

    async endingBy(end) {
      return (await list(db)).filter((partition) => partition.to <= end);
    },

    dropIfExpired(partition, cutoffs) {
      return exclusively(async (trx) => {
        const tables = PARTITIONED_TABLES.map((table) => sql.table(partitionName(partition.from, table)));
        // From here nothing is written into the day (reads go on) until it is dropped.
        for (const table of tables) await sql`lock table ${table} in share mode`.execute(trx);
        // The projects with rows in the day, one index lookup each per table: a loose scan of an index that
        // starts with projectId (the spans' time index, the side rows' key), no walk over every row.
        const projects = new Set<string>();
        for (const table of tables) {
          const { rows } = await sql<{ projectId: string }>`
            with recursive p as (
              (select "projectId" from ${table} order by "projectId" limit 1)
              union all
              select (select "projectId" from ${table} where "projectId" > p."projectId" order by "projectId" limit 1)
              from p where p."projectId" is not null
            )
            select "projectId" from p where "projectId" is not null`.execute(trx);
          for (const { projectId } of rows) projects.add(projectId);
        }
        const spans = tables[0] as ReturnType<typeof sql.table>;
        for (const projectId of projects) {
          const cutoff = cutoffs.get(projectId);
          if (cutoff === undefined || cutoff < partition.to) throw new NotNow();
          // A side row of a trace in the day belongs to a trace that started before the cutoff: expired. A span
          // may start before its trace (POST /logs/span), whose startedAt decides.
          const { rows: live } = await sql`
            select 1 from ${spans} s join "logTraces" t on t."id" = s."traceId"
            where s."projectId" = ${projectId} and t."startedAt" >= ${cutoff} limit 1`.execute(trx);
          if (live.length > 0) throw new NotNow();
        }
        const { rows: counted } = await sql<{ n: number }>`select count(*)::int as n from ${spans}`.execute(trx);
        // `= any(array(…))`: one index lookup per span id, never a scan of the scores or the queue.
        const spanIds = sql`any(array(select "id" from ${spans}))`;
        await sql`delete from "scores" where "spanId" = ${spanIds}`.execute(trx);
        await sql`delete from "onlineEvaluations" where "spanId" = ${spanIds}`.execute(trx);
        for (const table of tables) await sql`drop table ${table}`.execute(trx);
        return counted[0]?.n ?? 0;
      });
    },
  };
}

/**
 * Names a partition's indexes after the table's (`logSpansByTrace_d20261128`), instead of PostgreSQL's
 * column-list names, so a query plan says which of the table's indexes each partition's scan uses.
 */
export async function nameIndexes(trx: AnyDb, table: PartitionedTable, partition: string): Promise<void> {
  const suffix = partition.slice(table.length + 1);
  const { rows } = await sql<{ child: string; parent: string }>`
    select child.relname as child, parent.relname as parent
    from pg_index x
    join pg_class child on child.oid = x.indexrelid
    join pg_inherits i on i.inhrelid = child.oid
    join pg_class parent on parent.oid = i.inhparent
    where x.indrelid = quote_ident(${partition})::regclass`.execute(trx);
  for (const { child, parent } of rows) {
    const name = `${parent}_${suffix}`;
    if (child !== name) await sql`alter index ${sql.id(child)} rename to ${sql.id(name)}`.execute(trx);
  }
}
