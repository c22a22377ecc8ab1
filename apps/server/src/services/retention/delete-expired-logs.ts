/**
 * Log retention (ADR 0019): the traces of a project with `retentionDays` whose `startedAt` is older than that
 * many days go, with their spans and the attribute and tag rows of both, in small batches — each its own short
 * transaction — so that log writes and searches keep going between them (on SQLite a batch holds the write
 * lock only for its own few statements). Batches lock their traces `FOR UPDATE SKIP LOCKED`, so sweepers on
 * several replicas take different traces, and a trace a write is adding a span to at that moment is left for
 * the next pass. On PostgreSQL, a day of spans and their side rows that has wholly expired is dropped first,
 * partitions whole (span-partitions.ts, ADR 0027).
 */
import type { Kysely } from "kysely";
import type { Database } from "../../store/schema.ts";
import type { Store } from "../../store/store.ts";
import { fromJson } from "../json.ts";
import { dropExpiredPartitions } from "./span-partitions.ts";

export const DAY_MS = 24 * 60 * 60 * 1000;

/** A batch takes traces, oldest first, until they hold this many spans (and at most MAX_TRACES_PER_BATCH). */
const SPANS_PER_BATCH = 1000;
const MAX_TRACES_PER_BATCH = 200;
/** Ids per `in (…)` list: far below every database's bound on parameters. */
const IDS_PER_STATEMENT = 500;

export interface RetentionOptions {
  store: Store;
  now: number;
  /** Batches a pass runs at most (across projects), so that a pass ends; the rest waits for the next. */
  maxBatches?: number;
  /** Awaited between batches: where the sweeper lets other work in. */
  pause?: () => Promise<void>;
}

export interface RetentionResult {
  traces: number;
  /** Spans deleted with their traces or dropped with their partitions. */
  spans: number;
  /** PostgreSQL's days of spans and side rows dropped whole, partitions and all (ADR 0027). */
  partitions: number;
  /** Whether expired traces may remain (the pass stopped at maxBatches). */
  more: boolean;
}

/** One pass over every project with a retention: deletes what expired, in batches. */
export async function deleteExpiredLogs(options: RetentionOptions): Promise<RetentionResult> {
  const { store, now, maxBatches = 100, pause } = options;
  const projects = await store.db
    .selectFrom("projects")
    .select(["id", "retentionDays"])
    .where("retentionDays", "is not", null)
    .orderBy("id")
    .execute();
  const cutoffs = new Map(projects.map((project) => [project.id, now - (project.retentionDays as number) * DAY_MS]));
  // Whole days first: the traces whose spans they held have expired, and go by rows below.
  const dropped = await dropExpiredPartitions(store, cutoffs, pause);
  const result: RetentionResult = { traces: 0, spans: dropped.spans, partitions: dropped.partitions, more: false };
  let batches = 0;
  for (const project of projects) {
    const cutoff = cutoffs.get(project.id) as number;
    for (;;) {
      if (batches >= maxBatches) return { ...result, more: true };
      const deleted = await store.transaction(store.db, (trx) => deleteBatch(store, trx, project.id, cutoff));
      batches += 1;
      result.traces += deleted.traces;
      result.spans += deleted.spans;
      if (deleted.traces === 0) break;
      await pause?.();
    }
  }
  return result;
}

interface Owner {
  id: string;
  startedAt: number;
  attributes: string;
  tags: string;
}

/** Deletes one batch of the project's traces that started before `cutoff`; answers what it deleted. */
async function deleteBatch(
  store: Store,
  trx: Kysely<Database>,
  projectId: string,
  cutoff: number,
): Promise<{ traces: number; spans: number }> {
  const candidates = await store.sql.locks
    .forUpdateSkipLocked(
      trx
        .selectFrom("logTraces")
        .select(["id", "startedAt", "attributes", "tags", "spanIds"])
        .where("projectId", "=", projectId)
        .where("startedAt", "<", cutoff)
        .orderBy("startedAt")
        .orderBy("id")
        .limit(MAX_TRACES_PER_BATCH),
    )
    .execute();
  const traces: Owner[] = [];
  let spanCount = 0;
  for (const trace of candidates) {
    if (traces.length > 0 && spanCount >= SPANS_PER_BATCH) break;
    traces.push(trace);
    spanCount += fromJson<string[]>(trace.spanIds).length;
  }
  if (traces.length === 0) return { traces: 0, spans: 0 };
  const traceIds = traces.map((trace) => trace.id);

  const spans: Owner[] = [];
  for (const ids of chunks(traceIds)) {
    spans.push(
      ...(await trx
        .selectFrom("logSpans")
        .select(["id", "startedAt", "attributes", "tags"])
        .where("traceId", "in", ids)
        .execute()),
    );
  }
  await deleteSideRows(trx, projectId, "span", spans);
  await deleteSideRows(trx, projectId, "trace", traces);
  // The spans just read are all the traces have: a span is written only under its trace's lock, which this
  // transaction holds. Their time range bounds the delete, so that PostgreSQL looks only in the day
  // partitions of that range (ADR 0027); the read above, by traceId alone, still looks in every day.
  const range = timeRange(spans);
  for (const ids of chunks(traceIds)) {
    // Scores go with their trace or span (foreign keys); live spans' grading rows have no key to cascade on.
    await trx.deleteFrom("onlineEvaluations").where("traceId", "in", ids).execute();
    if (range) {
      await trx
        .deleteFrom("logSpans")
        .where("traceId", "in", ids)
        .where("startedAt", ">=", range.from)
        .where("startedAt", "<=", range.to)
        .execute();
    }
    await trx.deleteFrom("logTraces").where("id", "in", ids).execute();
  }
  return { traces: traces.length, spans: spans.length };
}

/**
 * The attribute and tag rows of `owners`, found by their key — (projectId, ownerKind, key | tag, startedAt,
 * ownerId), migration 0006 — from the keys and tags the owners' rows list and the time range they span, so
 * each delete reads only index entries of the batch's keys in the batch's time range.
 */
async function deleteSideRows(
  trx: Kysely<Database>,
  projectId: string,
  ownerKind: "trace" | "span",
  owners: readonly Owner[],
): Promise<void> {
  const range = timeRange(owners);
  if (!range) return;
  const { from, to } = range;
  const keys = new Set<string>();
  const tags = new Set<string>();
  for (const owner of owners) {
    for (const key of Object.keys(fromJson<Record<string, unknown>>(owner.attributes))) keys.add(key);
    for (const tag of fromJson<string[]>(owner.tags)) tags.add(tag);
  }
  for (const ownerIds of chunks(owners.map((owner) => owner.id))) {
    for (const names of chunks([...keys])) {
      await trx
        .deleteFrom("logAttributes")
        .where("projectId", "=", projectId)
        .where("ownerKind", "=", ownerKind)
        .where("key", "in", names)
        .where("startedAt", ">=", from)
        .where("startedAt", "<=", to)
        .where("ownerId", "in", ownerIds)
        .execute();
    }
    for (const names of chunks([...tags])) {
      await trx
        .deleteFrom("logTags")
        .where("projectId", "=", projectId)
        .where("ownerKind", "=", ownerKind)
        .where("tag", "in", names)
        .where("startedAt", ">=", from)
        .where("startedAt", "<=", to)
        .where("ownerId", "in", ownerIds)
        .execute();
    }
  }
}

/** The earliest and latest `startedAt` of `owners`; undefined when there are none. */
function timeRange(owners: readonly Owner[]): { from: number; to: number } | undefined {
  if (owners.length === 0) return undefined;
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  for (const owner of owners) {
    from = Math.min(from, owner.startedAt);
    to = Math.max(to, owner.startedAt);
  }
  return { from, to };
}

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let at = 0; at < items.length; at += IDS_PER_STATEMENT) out.push(items.slice(at, at + IDS_PER_STATEMENT));
  return out;
}
