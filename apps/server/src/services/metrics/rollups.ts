/**
 * The metrics rollups (ADR 0017): per project, UTC bucket (minute, hour and day) and combination of
 * dimensions, the sums that POST /logs/metrics answers from. Every log write adds its rows' deltas in its own
 * transaction, so the rollups are exact and never lag. Adding is commutative: the deltas of a write batch are
 * summed per key and applied with one upsert per table (`count = count + excluded.count`, histograms through
 * `pharos_histogram_add`), in key order, so concurrent writers on PostgreSQL lock keys in the same order.
 *
 * Span rows never change once written, so span rollups only grow. A trace counts once, in the bucket of its
 * start under its name; a write that renames or moves a trace (an OTLP root span arriving late) moves its count.
 * Dimensions without a value are stored as "" (key columns must be non-null to be unique).
 */
import { type Insertable, type Kysely, sql } from "kysely";
import type { Database } from "../../store/schema.ts";
import {
  addHistogram,
  addHistogramText,
  bucketOf,
  DeltaHistogram,
  emptyHistogram,
  type Histogram,
  histogramToText,
} from "./latency-histogram.ts";

export type BucketSize = "minute" | "hour" | "day";
export const BUCKET_MS: Record<BucketSize, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };
const BUCKET_SIZES = Object.keys(BUCKET_MS) as BucketSize[];

export type SpanRollupRow = Insertable<Database["logSpanRollups"]>;
export type TraceRollupRow = Insertable<Database["logTraceRollups"]>;
export type ScoreRollupRow = Insertable<Database["scoreRollups"]>;

/** What a span contributes to the rollups (a subset of its stored row). */
export interface RolledUpSpan {
  projectId: string;
  startedAt: number;
  status: string;
  contentType: string;
  latency: number;
  model: string | null;
  provider: string | null;
  promptId: string | null;
  deploymentId: string | null;
  cost: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
}

export const SPAN_ROLLUP_KEY = [
  "projectId",
  "bucketSize",
  "bucketStart",
  "model",
  "provider",
  "promptId",
  "deploymentId",
  "contentType",
] as const;
export const TRACE_ROLLUP_KEY = ["projectId", "bucketSize", "bucketStart", "traceName"] as const;
export const SCORE_ROLLUP_KEY = ["projectId", "bucketSize", "bucketStart", "scoreName"] as const;

const bucketStart = (time: number, size: BucketSize) => Math.floor(time / BUCKET_MS[size]) * BUCKET_MS[size];

/** A new rollup row's sums, before its deltas are added (its histogram text is written once they are). */
const noSums = () => ({ spanCount: 0, failedSpans: 0, cost: 0, inputTokens: 0, outputTokens: 0, latencyHistogram: "" });

const keyOf = (row: Record<string, unknown>, columns: readonly string[]) =>
  JSON.stringify(columns.map((column) => row[column]));

/**
 * The spans' deltas: per minute and combination of dimensions, one row for each of its minute, hour and day keys
 * (spans of another minute in the same hour add rows with the same hour and day keys: the upsert sums the rows of
 * its batch per key, `addToSpanRollups`). Spans sharing a minute and dimensions (most of a trace's) share their
 * three rows, found with one lookup.
 */
export function spanRollupRows(spans: readonly RolledUpSpan[]): SpanRollupRow[] {
  const byMinute = new Map<string, { row: SpanRollupRow; histogram: DeltaHistogram }[]>();
  for (const span of spans) {
    const id = `${bucketStart(span.startedAt, "minute")}\n${span.projectId}\n${span.model}\n${span.provider}\n${span.promptId}\n${span.deploymentId}\n${span.contentType}`;
    let entries = byMinute.get(id);
    if (!entries) {
      entries = BUCKET_SIZES.map((bucketSize) => ({
        row: {
          projectId: span.projectId,
          bucketSize,
          bucketStart: bucketStart(span.startedAt, bucketSize),
          model: span.model ?? "",
          provider: span.provider ?? "",
          promptId: span.promptId ?? "",
          deploymentId: span.deploymentId ?? "",
          contentType: span.contentType,
          ...noSums(),
        },
        histogram: new DeltaHistogram(),
      }));
      byMinute.set(id, entries);
    }
    const latencyBucket = bucketOf(span.latency);
    for (const { row, histogram } of entries) {
      row.spanCount = (row.spanCount as number) + 1;
      if (span.status === "failure") row.failedSpans = (row.failedSpans as number) + 1;
      row.cost = (row.cost as number) + (span.cost ?? 0);
      row.inputTokens = (row.inputTokens as number) + (span.promptTokens ?? 0);
      row.outputTokens = (row.outputTokens as number) + (span.completionTokens ?? 0);
      histogram.add(latencyBucket, 1);
    }
  }
  const deltas: SpanRollupRow[] = [];
  for (const entries of byMinute.values()) {
    for (const { row, histogram } of entries) {
      row.latencyHistogram = histogram.toText();
      deltas.push(row);
    }
  }
  return deltas;
}

/**
 * Traces counted (`count` 1) or uncounted (−1) in the buckets of their start, under their names: one row per key
 * (a batch's traces share a few), the rows that cancel out left out.
 */
export function traceRollupRows(
  traces: readonly { projectId: string; name: string; startedAt: number; count?: number }[],
): TraceRollupRow[] {
  const byKey = new Map<string, TraceRollupRow>();
  for (const trace of traces) {
    for (const bucketSize of BUCKET_SIZES) {
      const start = bucketStart(trace.startedAt, bucketSize);
      // The name last: the only part of the key that may hold any character.
      const id = `${trace.projectId}\n${bucketSize}\n${start}\n${trace.name}`;
      const row = byKey.get(id);
      if (row) row.traceCount = (row.traceCount as number) + (trace.count ?? 1);
      else {
        byKey.set(id, {
          projectId: trace.projectId,
          bucketSize,
          bucketStart: start,
          traceName: trace.name,
          traceCount: trace.count ?? 1,
        });
      }
    }
  }
  return [...byKey.values()].filter((row) => row.traceCount !== 0);
}

/** Rows of the same key summed (a multi-row upsert may not touch one row twice), in key order. */
function summed<Row extends Record<string, unknown>>(
  rows: readonly Row[],
  key: readonly string[],
  add: (into: Row, row: Row) => void,
): Row[] {
  const byKey = new Map<string, Row>();
  for (const row of rows) {
    const id = keyOf(row, key);
    const into = byKey.get(id);
    if (into) add(into, row);
    else byKey.set(id, { ...row });
  }
  return [...byKey.keys()].sort().map((id) => byKey.get(id) as Row);
}

/** Rows per statement: well under both databases' bound-parameter limits. */
const CHUNK = 500;

/**
 * Adds span deltas to the span rollups, in the transaction `db` belongs to: the combination rollups and, for hour
 * and day buckets, the per-dimension rollups summed from them (`dimensions: false` only for migration 0013's
 * backfill, which runs before migration 0021 creates that table and rolls up what 0013 built). `audience`: the
 * trace-side per-dimension deltas of the same writes (`audienceRollupRows`), upserted in the same statement.
 */
export async function addToSpanRollups(
  db: Kysely<Database>,
  deltas: readonly SpanRollupRow[],
  { dimensions = true, audience = [] }: { dimensions?: boolean; audience?: readonly DimensionRollupRow[] } = {},
): Promise<void> {
  // Each key's histograms are merged in one histogram (each delta's text read once), then written once.
  const histograms = new Map<SpanRollupRow, Histogram>();
  const rows = summed(deltas, SPAN_ROLLUP_KEY, (into, row) => {
    into.spanCount = (into.spanCount as number) + (row.spanCount as number);
    into.failedSpans = (into.failedSpans as number) + (row.failedSpans as number);
    into.cost = (into.cost as number) + (row.cost as number);
    into.inputTokens = (into.inputTokens as number) + (row.inputTokens as number);
    into.outputTokens = (into.outputTokens as number) + (row.outputTokens as number);
    let histogram = histograms.get(into);
    if (!histogram) {
      histogram = emptyHistogram();
      addHistogramText(histogram, into.latencyHistogram as string);
      histograms.set(into, histogram);
    }
    addHistogramText(histogram, row.latencyHistogram as string);
  });
  for (const [row, histogram] of histograms) row.latencyHistogram = histogramToText(histogram);
  for (let at = 0; at < rows.length; at += CHUNK) {
    await db
      .insertInto("logSpanRollups")
      .values(rows.slice(at, at + CHUNK))
      .onConflict((conflict) =>
        conflict.columns([...SPAN_ROLLUP_KEY]).doUpdateSet((eb) => ({
          spanCount: eb("logSpanRollups.spanCount", "+", eb.ref("excluded.spanCount")),
          failedSpans: eb("logSpanRollups.failedSpans", "+", eb.ref("excluded.failedSpans")),
          cost: eb("logSpanRollups.cost", "+", eb.ref("excluded.cost")),
          inputTokens: eb("logSpanRollups.inputTokens", "+", eb.ref("excluded.inputTokens")),
          outputTokens: eb("logSpanRollups.outputTokens", "+", eb.ref("excluded.outputTokens")),
          latencyHistogram: sql<string>`pharos_histogram_add(${sql.ref("logSpanRollups.latencyHistogram")}, ${sql.ref("excluded.latencyHistogram")})`,
        })),
      )
      .execute();
  }
  if (!dimensions) return;
  const projected = dimensionRollupRows(rows, histograms);
  // The trace-side dimensions never share a key with the projected ones: only the writes' own are summed.
  await addToDimensionRollups(
    db,
    audience.length === 0 ? projected : inKeyOrder([...projected, ...summedDimensionRows(audience)]),
  );
}

/**
 * The per-dimension rollups (migration 0021): per project, hour or day bucket and ONE dimension (model,
 * provider, promptId, deploymentId or contentType, its value "" for none; or dimension "" for all spans), the
 * same sums as the combination rollups. A query grouped and filtered by at most one dimension reads one row per
 * point from them (the 30-day hourly by-model query: 720 × models rows) instead of every combination.
 */
export type DimensionRollupRow = Insertable<Database["logSpanDimensionRollups"]>;
export const DIMENSION_ROLLUP_KEY = ["projectId", "bucketSize", "bucketStart", "dimension", "value"] as const;
export const ROLLUP_DIMENSIONS = ["model", "provider", "promptId", "deploymentId", "contentType"] as const;
export type RollupDimension = (typeof ROLLUP_DIMENSIONS)[number];

/**
 * The combination rows' sums per single dimension, for hour and day buckets (`histograms`: the rows' histograms
 * already read, if any). Summed from a batch's summed rows, not from its spans: a handful of keys per batch.
 */
export function dimensionRollupRows(
  rows: readonly SpanRollupRow[],
  histograms: ReadonlyMap<SpanRollupRow, Histogram> = new Map(),
): DimensionRollupRow[] {
  const byKey = new Map<string, { row: DimensionRollupRow; histogram: Histogram }>();
  for (const row of rows) {
    if (row.bucketSize === "minute") continue;
    let histogram = histograms.get(row);
    if (!histogram) {
      histogram = emptyHistogram();
      addHistogramText(histogram, row.latencyHistogram as string);
    }
    for (const dimension of ["", ...ROLLUP_DIMENSIONS] as const) {
      const value = dimension === "" ? "" : (row[dimension] as string);
      const id = `${row.projectId}\n${row.bucketSize}\n${row.bucketStart}\n${dimension}\n${value}`;
      let entry = byKey.get(id);
      if (!entry) {
        entry = {
          row: {
            projectId: row.projectId,
            bucketSize: row.bucketSize,
            bucketStart: row.bucketStart,
            dimension,
            value,
            ...noSums(),
          },
          histogram: emptyHistogram(),
        };
        byKey.set(id, entry);
      }
      const into = entry.row;
      into.spanCount = (into.spanCount as number) + Number(row.spanCount);
      into.failedSpans = (into.failedSpans as number) + Number(row.failedSpans);
      into.cost = (into.cost as number) + Number(row.cost);
      into.inputTokens = (into.inputTokens as number) + Number(row.inputTokens);
      into.outputTokens = (into.outputTokens as number) + Number(row.outputTokens);
      addHistogram(entry.histogram, histogram);
    }
  }
  // In key order, so that concurrent writers on PostgreSQL lock keys in one order.
  return [...byKey.keys()].sort().map((id) => {
    const { row, histogram } = byKey.get(id) as { row: DimensionRollupRow; histogram: Histogram };
    return { ...row, latencyHistogram: histogramToText(histogram) };
  });
}

/** Adds summed per-dimension deltas to the per-dimension rollups, in the transaction `db` belongs to. */
export async function addToDimensionRollups(db: Kysely<Database>, rows: readonly DimensionRollupRow[]): Promise<void> {
  for (let at = 0; at < rows.length; at += CHUNK) {
    await db
      .insertInto("logSpanDimensionRollups")
      .values(rows.slice(at, at + CHUNK))
      .onConflict((conflict) =>
        conflict.columns([...DIMENSION_ROLLUP_KEY]).doUpdateSet((eb) => ({
          spanCount: eb("logSpanDimensionRollups.spanCount", "+", eb.ref("excluded.spanCount")),
          failedSpans: eb("logSpanDimensionRollups.failedSpans", "+", eb.ref("excluded.failedSpans")),
          cost: eb("logSpanDimensionRollups.cost", "+", eb.ref("excluded.cost")),
          inputTokens: eb("logSpanDimensionRollups.inputTokens", "+", eb.ref("excluded.inputTokens")),
          outputTokens: eb("logSpanDimensionRollups.outputTokens", "+", eb.ref("excluded.outputTokens")),
          latencyHistogram: sql<string>`pharos_histogram_add(${sql.ref("logSpanDimensionRollups.latencyHistogram")}, ${sql.ref("excluded.latencyHistogram")})`,
        })),
      )
      .execute();
  }
}

/** Adds trace deltas (+1 / −1) to the trace rollups, in the transaction `db` belongs to. */
export const addToTraceRollups = (db: Kysely<Database>, deltas: readonly TraceRollupRow[]): Promise<void> =>
  addTraceCounts(db, "logTraceRollups", TRACE_ROLLUP_KEY, deltas);

/**
 * Adds trace count deltas to `table`, summed per `key` first, one upsert per chunk in key order (the two trace
 * rollup tables differ only in their key).
 */
async function addTraceCounts<Row extends { traceCount?: number }>(
  db: Kysely<Database>,
  table: "logTraceRollups" | "logTraceDimensionRollups",
  key: readonly string[],
  deltas: readonly Row[],
): Promise<void> {
  const rows = summed(deltas as readonly (Row & Record<string, unknown>)[], key, (into, row) => {
    into.traceCount = (into.traceCount as number) + (row.traceCount as number);
  });
  for (let at = 0; at < rows.length; at += CHUNK) {
    await db
      .insertInto(table)
      .values(rows.slice(at, at + CHUNK) as never)
      .onConflict((conflict) =>
        conflict.columns(key as never).doUpdateSet({
          traceCount: sql`${sql.ref(`${table}.traceCount`)} + ${sql.ref("excluded.traceCount")}`,
        }),
      )
      .execute();
  }
}

/**
 * A numeric or boolean score counted (`count` 1) or taken out (−1, a deleted score) in the buckets of its
 * `createdAt`; `numberValue` is its stored value (a boolean as 1 or 0). Categorical scores have none: no rows.
 */
export function scoreRollupRows(
  scores: readonly {
    projectId: string;
    name: string;
    createdAt: number;
    numberValue: number | null;
    count?: number;
  }[],
): ScoreRollupRow[] {
  return scores.flatMap((score) => {
    if (score.numberValue === null) return [];
    const count = score.count ?? 1;
    return BUCKET_SIZES.map((bucketSize) => ({
      projectId: score.projectId,
      bucketSize,
      bucketStart: bucketStart(Number(score.createdAt), bucketSize),
      scoreName: score.name,
      scoreCount: count,
      scoreSum: count * Number(score.numberValue),
    }));
  });
}

/** Adds score deltas to the score rollups, in the transaction `db` belongs to. */
export async function addToScoreRollups(db: Kysely<Database>, deltas: readonly ScoreRollupRow[]): Promise<void> {
  const rows = summed(deltas, SCORE_ROLLUP_KEY, (into, row) => {
    into.scoreCount = (into.scoreCount as number) + (row.scoreCount as number);
    into.scoreSum = (into.scoreSum as number) + (row.scoreSum as number);
  });
  for (let at = 0; at < rows.length; at += CHUNK) {
    await db
      .insertInto("scoreRollups")
      .values(rows.slice(at, at + CHUNK))
      .onConflict((conflict) =>
        conflict.columns([...SCORE_ROLLUP_KEY]).doUpdateSet((eb) => ({
          scoreCount: eb("scoreRollups.scoreCount", "+", eb.ref("excluded.scoreCount")),
          scoreSum: eb("scoreRollups.scoreSum", "+", eb.ref("excluded.scoreSum")),
        })),
      )
      .execute();
  }
}

/**
 * The trace-side dimensions (migration 0023, ADR 0017): a span is counted under its trace's `userId` and
 * `sessionId` and under each distinct tag of its own and its trace's tags; a trace under its user, session and
 * each of its tags ("" for none). They live only in the per-dimension tables (their cardinality would multiply
 * the combination rows), hour and day buckets. Their values can change after the spans were counted (tags by
 * updateLogTrace, a user or session arriving on a later OTLP span): the write that changes them moves the counts
 * (`audienceRollupRows` with `before`), so the rollups stay exact.
 */
export const AUDIENCE_DIMENSIONS = ["userId", "sessionId", "tag"] as const;
export type AudienceDimension = (typeof AUDIENCE_DIMENSIONS)[number];
export type TraceDimensionRollupRow = Insertable<Database["logTraceDimensionRollups"]>;
export const TRACE_DIMENSION_ROLLUP_KEY = DIMENSION_ROLLUP_KEY;

/** The trace-side values spans and traces are counted under. */
export interface Audience {
  userId: string | null;
  sessionId: string | null;
  tags: readonly string[];
}

/** A span as the trace-side rollups need it: its measures and its own tags. */
export interface AudienceSpan extends RolledUpSpan {
  tags: readonly string[];
}

/** The (dimension, value) pairs counted for `audience` plus a span's own tags, as `dimension\nvalue`. */
function audiencePairs(audience: Audience, ownTags: readonly string[] = []): Set<string> {
  const pairs = new Set([`userId\n${audience.userId ?? ""}`, `sessionId\n${audience.sessionId ?? ""}`]);
  for (const tag of ownTags) pairs.add(`tag\n${tag}`);
  for (const tag of audience.tags) pairs.add(`tag\n${tag}`);
  if (ownTags.length === 0 && audience.tags.length === 0) pairs.add("tag\n");
  return pairs;
}

const HOUR_AND_DAY = ["hour", "day"] as const;
const dimensionKeyOf = (row: {
  projectId: string;
  bucketSize: string;
  bucketStart: number;
  dimension: string;
  value: string;
}) => `${row.projectId}\n${row.bucketSize}\n${row.bucketStart}\n${row.dimension}\n${row.value}`;

/** The pairs a span counts under: +1 under `audience`'s or, with `before`, −1 / +1 under those that differ. */
function signedPairs(audience: Audience, before: Audience | undefined, ownTags: readonly string[]): [string, number][] {
  const now = audiencePairs(audience, ownTags);
  if (before === undefined) return [...now].map((pair) => [pair, 1]);
  const then = audiencePairs(before, ownTags);
  const pairs: [string, number][] = [];
  for (const pair of then) if (!now.has(pair)) pairs.push([pair, -1]);
  for (const pair of now) if (!then.has(pair)) pairs.push([pair, 1]);
  return pairs;
}

/**
 * The trace-side per-dimension deltas of groups of spans of one trace each: counted under `audience` or, with
 * `before`, moved from `before` to `audience` (−1 under the pairs only `before` has, +1 under those only
 * `audience` has: each key's deltas have one sign, so histograms and sums never cancel out). One row per key,
 * not in key order (the upserts sum a batch's rows per key and order them: `summedDimensionRows`).
 */
export function audienceRollupRows(
  groups: readonly { spans: readonly AudienceSpan[]; audience: Audience; before?: Audience }[],
): DimensionRollupRow[] {
  type Entry = { row: DimensionRollupRow; histogram: DeltaHistogram };
  const byKey = new Map<string, Entry>();
  const entryOf = (projectId: string, bucketSize: "hour" | "day", start: number, pair: string): Entry => {
    const id = `${projectId}\n${bucketSize}\n${start}\n${pair}`;
    let entry = byKey.get(id);
    if (!entry) {
      const split = pair.indexOf("\n");
      entry = {
        row: {
          projectId,
          bucketSize,
          bucketStart: start,
          dimension: pair.slice(0, split) as AudienceDimension,
          value: pair.slice(split + 1),
          ...noSums(),
        },
        histogram: new DeltaHistogram(),
      };
      byKey.set(id, entry);
    }
    return entry;
  };
  for (const { spans, audience, before } of groups) {
    // A trace's spans mostly share their own tags and hour: the entries they add to (pairs × hour and day) are
    // found once per (own tags, hour), not per span and pair.
    const entriesOf = new Map<string, { entry: Entry; sign: number }[]>();
    for (const span of spans) {
      const hour = bucketStart(span.startedAt, "hour");
      const id = `${hour}\n${JSON.stringify(span.tags)}`;
      let entries = entriesOf.get(id);
      if (!entries) {
        entries = signedPairs(audience, before, span.tags).flatMap(([pair, sign]) =>
          HOUR_AND_DAY.map((bucketSize) => ({
            entry: entryOf(span.projectId, bucketSize, bucketStart(span.startedAt, bucketSize), pair),
            sign,
          })),
        );
        entriesOf.set(id, entries);
      }
      const latencyBucket = bucketOf(span.latency);
      for (const { entry, sign } of entries) {
        const { row } = entry;
        row.spanCount = (row.spanCount as number) + sign;
        if (span.status === "failure") row.failedSpans = (row.failedSpans as number) + sign;
        row.cost = (row.cost as number) + sign * (span.cost ?? 0);
        row.inputTokens = (row.inputTokens as number) + sign * (span.promptTokens ?? 0);
        row.outputTokens = (row.outputTokens as number) + sign * (span.completionTokens ?? 0);
        entry.histogram.add(latencyBucket, sign);
      }
    }
  }
  const deltas: DimensionRollupRow[] = [];
  for (const { row, histogram } of byKey.values()) {
    row.latencyHistogram = histogram.toText();
    deltas.push(row);
  }
  return deltas;
}

/** Per-dimension deltas of several writes (a batch's jobs) summed per key, in key order. */
export function summedDimensionRows(rows: readonly DimensionRollupRow[]): DimensionRollupRow[] {
  const byKey = new Map<string, { row: DimensionRollupRow; histogram?: Histogram }>();
  for (const row of rows) {
    const id = dimensionKeyOf(row);
    const entry = byKey.get(id);
    if (!entry) {
      byKey.set(id, { row: { ...row } });
      continue;
    }
    const into = entry.row;
    into.spanCount = Number(into.spanCount) + Number(row.spanCount);
    into.failedSpans = Number(into.failedSpans) + Number(row.failedSpans);
    into.cost = Number(into.cost) + Number(row.cost);
    into.inputTokens = Number(into.inputTokens) + Number(row.inputTokens);
    into.outputTokens = Number(into.outputTokens) + Number(row.outputTokens);
    if (!entry.histogram) {
      entry.histogram = emptyHistogram();
      addHistogramText(entry.histogram, into.latencyHistogram as string);
    }
    addHistogramText(entry.histogram, row.latencyHistogram as string);
  }
  return [...byKey.keys()].sort().map((id) => {
    const { row, histogram } = byKey.get(id) as { row: DimensionRollupRow; histogram?: Histogram };
    return histogram ? { ...row, latencyHistogram: histogramToText(histogram) } : row;
  });
}

/** Merges two lists of summed per-dimension rows with no key in common into one list in key order. */
export function inKeyOrder(rows: readonly DimensionRollupRow[]): DimensionRollupRow[] {
  return rows
    .map((row) => ({ id: dimensionKeyOf(row), row }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map(({ row }) => row);
}

/**
 * Traces counted (`count` 1), uncounted (−1) under their user, session and tags, in the hour and day buckets of
 * their start. A move is the old state with −1 and the new with +1: the rows that cancel out are left out. Not in
 * key order: the upsert sums and orders the rows of its batch.
 */
export function traceDimensionRollupRows(
  traces: readonly (Audience & { projectId: string; startedAt: number; count?: number })[],
): TraceDimensionRollupRow[] {
  const byKey = new Map<string, TraceDimensionRollupRow>();
  for (const trace of traces) {
    for (const pair of audiencePairs(trace)) {
      const split = pair.indexOf("\n");
      for (const bucketSize of HOUR_AND_DAY) {
        const start = bucketStart(trace.startedAt, bucketSize);
        const id = `${trace.projectId}\n${bucketSize}\n${start}\n${pair}`;
        const row = byKey.get(id) ?? {
          projectId: trace.projectId,
          bucketSize,
          bucketStart: start,
          dimension: pair.slice(0, split) as AudienceDimension,
          value: pair.slice(split + 1),
          traceCount: 0,
        };
        row.traceCount = (row.traceCount as number) + (trace.count ?? 1);
        byKey.set(id, row);
      }
    }
  }
  return [...byKey.values()].filter((row) => row.traceCount !== 0);
}

/** Adds trace deltas to the trace-side per-dimension rollups, in the transaction `db` belongs to. */
export const addToTraceDimensionRollups = (
  db: Kysely<Database>,
  deltas: readonly TraceDimensionRollupRow[],
): Promise<void> => addTraceCounts(db, "logTraceDimensionRollups", TRACE_DIMENSION_ROLLUP_KEY, deltas);

/**
 * What a new trace adds to the rollups (createLogTrace, the OTLP traces a write creates): its count under its
 * name, user, session and tags, and its spans. The write batcher hands a batch's new traces over together
 * (`addNewTraces`), so each key's delta is built once per batch instead of once per write and summed again.
 */
export interface NewTraceRollups extends Audience {
  projectId: string;
  name: string;
  startedAt: number;
  spans: readonly AudienceSpan[];
}

/** Adds new traces and their spans to every log rollup, in the transaction `db` belongs to. */
export async function addNewTraces(db: Kysely<Database>, traces: readonly NewTraceRollups[]): Promise<void> {
  await addToSpanRollups(db, spanRollupRows(traces.flatMap((trace) => trace.spans)), {
    audience: audienceRollupRows(traces.map((trace) => ({ spans: trace.spans, audience: trace }))),
  });
  await addToTraceRollups(db, traceRollupRows(traces));
  await addToTraceDimensionRollups(db, traceDimensionRollupRows(traces));
}

/** The columns of a stored span that `audienceSpans` reads. */
export const AUDIENCE_SPAN_COLUMNS = [
  "projectId",
  "startedAt",
  "status",
  "contentType",
  "latency",
  "model",
  "provider",
  "promptId",
  "deploymentId",
  "cost",
  "promptTokens",
  "completionTokens",
  "tags",
] as const;

/** Stored span rows (their tags as JSON text) as the trace-side rollups read them. */
export const audienceSpans = (rows: readonly (RolledUpSpan & { tags: string })[]): AudienceSpan[] =>
  // Only the columns read (a span row holds its content too: copying all of it cost more than the rest).
  rows.map((row) => ({
    projectId: row.projectId,
    startedAt: row.startedAt,
    status: row.status,
    contentType: row.contentType,
    latency: row.latency,
    model: row.model,
    provider: row.provider,
    promptId: row.promptId,
    deploymentId: row.deploymentId,
    cost: row.cost,
    promptTokens: row.promptTokens,
    completionTokens: row.completionTokens,
    tags: JSON.parse(row.tags) as string[],
  }));
