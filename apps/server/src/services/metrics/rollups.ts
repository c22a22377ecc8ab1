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
import { CompiledQuery, type Insertable, type Kysely, type RawBuilder, sql } from "kysely";
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

/**
 * A new per-dimension row, its sums 0 before its deltas are added (its histogram text is written once they are).
 * Rows are whole object literals, not spread from a shared one: V8 keeps a literal's hidden class for as long as
 * the function lives, while one built by spreading lives only while some row of it does, and the optimized
 * builders were thrown away with it at every full collection (as for `DeltaHistogram`, latency-histogram.ts).
 */
const newDimensionRow = (
  projectId: string,
  bucketSize: DimensionRollupRow["bucketSize"],
  start: number,
  dimension: DimensionRollupRow["dimension"],
  value: string,
): DimensionRollupRow => ({
  projectId,
  bucketSize,
  bucketStart: start,
  dimension,
  value,
  spanCount: 0,
  failedSpans: 0,
  cost: 0,
  inputTokens: 0,
  outputTokens: 0,
  latencyHistogram: "",
});

const keyOf = (row: Record<string, unknown>, columns: readonly string[]) =>
  JSON.stringify(columns.map((column) => row[column]));

/**
 * The spans' deltas: per minute and combination of dimensions, one row for each of its minute, hour and day keys
 * (spans of another minute in the same hour add rows with the same hour and day keys: the upsert sums the rows of
 * its batch per key, `addToSpanRollups`). Spans sharing a minute and dimensions share their three rows; a span
 * with those of the span before it (most of a trace's) adds to them without a lookup.
 */
export function spanRollupRows(spans: readonly RolledUpSpan[]): SpanRollupRow[] {
  type Entry = { row: SpanRollupRow; histogram: DeltaHistogram };
  const byMinute = new Map<string, Entry[]>();
  const entriesOf = (span: RolledUpSpan): Entry[] => {
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
          spanCount: 0,
          failedSpans: 0,
          cost: 0,
          inputTokens: 0,
          outputTokens: 0,
          latencyHistogram: "",
        },
        histogram: new DeltaHistogram(),
      }));
      byMinute.set(id, entries);
    }
    return entries;
  };
  let previous: RolledUpSpan | undefined;
  let entries: Entry[] = [];
  for (const span of spans) {
    // Most spans have the minute and dimensions of the span before them: their rows without building a key.
    if (previous === undefined || !sameRollupKey(previous, span)) entries = entriesOf(span);
    previous = span;
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

/** Whether two spans add to the same span rollup rows: same minute, project and dimensions. */
const sameRollupKey = (a: RolledUpSpan, b: RolledUpSpan) =>
  bucketStart(a.startedAt, "minute") === bucketStart(b.startedAt, "minute") &&
  a.projectId === b.projectId &&
  a.model === b.model &&
  a.provider === b.provider &&
  a.promptId === b.promptId &&
  a.deploymentId === b.deploymentId &&
  a.contentType === b.contentType;

/**
 * Traces counted (`count` 1) or uncounted (−1) in the buckets of their start, under their names: one row per key
 * (a batch's traces share a few), the rows that cancel out left out.
 */
export function traceRollupRows(
  traces: readonly { projectId: string; name: string; startedAt: number; count?: number }[],
): TraceRollupRow[] {
  type Trace = (typeof traces)[number];
  const byKey = new Map<string, TraceRollupRow>();
  const rowsOf = (trace: Trace) =>
    BUCKET_SIZES.map((bucketSize) => {
      const start = bucketStart(trace.startedAt, bucketSize);
      // The name last: the only part of the key that may hold any character.
      const id = `${trace.projectId}\n${bucketSize}\n${start}\n${trace.name}`;
      let row = byKey.get(id);
      if (!row) {
        row = { projectId: trace.projectId, bucketSize, bucketStart: start, traceName: trace.name, traceCount: 0 };
        byKey.set(id, row);
      }
      return row;
    });
  let previous: Trace | undefined;
  let rows: TraceRollupRow[] = [];
  for (const trace of traces) {
    // A batch's traces mostly share their name and minute with the one before: its rows without building keys.
    const same =
      previous !== undefined &&
      previous.projectId === trace.projectId &&
      previous.name === trace.name &&
      bucketStart(previous.startedAt, "minute") === bucketStart(trace.startedAt, "minute");
    if (!same) rows = rowsOf(trace);
    previous = trace;
    for (const row of rows) row.traceCount = (row.traceCount as number) + (trace.count ?? 1);
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

type RollupTable =
  | "logSpanRollups"
  | "logSpanDimensionRollups"
  | "logTraceRollups"
  | "logTraceDimensionRollups"
  | "scoreRollups";

/**
 * The upserts' SQL texts, per database (its Kysely adapter) and per table, columns and number of rows. Building
 * and compiling a multi-row upsert cost more than running it (1.3 ms for the 20 per-dimension rows of a bench
 * batch against 0.4 ms to run them, ADR 0017), and the text depends on nothing else: values are bound. Bounded,
 * as the number of rows varies.
 */
const upsertTexts = new WeakMap<object, Map<string, string>>();
const UPSERT_TEXTS = 256;

/**
 * Adds summed rows (one per key, in key order) to a rollup table, in the transaction `db` belongs to: a new key
 * is inserted; an existing one gets each other column added, the latency histogram through
 * `pharos_histogram_add`. Every column of a rollup table but its key is such a sum.
 */
async function addRows(
  db: Kysely<Database>,
  table: RollupTable,
  key: readonly string[],
  rows: readonly Record<string, unknown>[],
): Promise<void> {
  const first = rows[0];
  if (first === undefined) return;
  const columns = Object.keys(first);
  const adapter = db.getExecutor().adapter;
  let texts = upsertTexts.get(adapter);
  if (!texts) {
    texts = new Map();
    upsertTexts.set(adapter, texts);
  }
  for (let at = 0; at < rows.length; at += CHUNK) {
    const chunk = rows.slice(at, at + CHUNK);
    const parameters = chunk.flatMap((row) => columns.map((column) => row[column]));
    const id = `${table}\n${chunk.length}\n${columns.join()}`;
    let text = texts.get(id);
    if (text === undefined) {
      text = upsertQuery(table, key, columns, chunk).compile(db).sql;
      if (texts.size >= UPSERT_TEXTS) texts.clear();
      texts.set(id, text);
    }
    await db.executeQuery(CompiledQuery.raw(text, parameters));
  }
}

/** The upsert of `rows` (their values bound in row order, then column order: `addRows` binds them so). */
function upsertQuery(
  table: RollupTable,
  key: readonly string[],
  columns: readonly string[],
  rows: readonly Record<string, unknown>[],
): RawBuilder<unknown> {
  const sums = columns.filter((column) => !key.includes(column));
  const added = (column: string) =>
    column === "latencyHistogram"
      ? sql`pharos_histogram_add(${sql.ref(`${table}.${column}`)}, ${sql.ref(`excluded.${column}`)})`
      : sql`${sql.ref(`${table}.${column}`)} + ${sql.ref(`excluded.${column}`)}`;
  return sql`insert into ${sql.table(table)} (${sql.join(columns.map((column) => sql.ref(column)))})
    values ${sql.join(rows.map((row) => sql`(${sql.join(columns.map((column) => row[column]))})`))}
    on conflict (${sql.join(key.map((column) => sql.ref(column)))})
    do update set ${sql.join(sums.map((column) => sql`${sql.ref(column)} = ${added(column)}`))}`;
}

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
  await addRows(db, "logSpanRollups", SPAN_ROLLUP_KEY, rows);
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
          row: newDimensionRow(row.projectId, row.bucketSize, row.bucketStart as number, dimension, value),
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
export const addToDimensionRollups = (db: Kysely<Database>, rows: readonly DimensionRollupRow[]): Promise<void> =>
  addRows(db, "logSpanDimensionRollups", DIMENSION_ROLLUP_KEY, rows);

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
  await addRows(db, table, key, rows);
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
  await addRows(db, "scoreRollups", SCORE_ROLLUP_KEY, rows);
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

/** Whether two spans of a trace count under the same pairs and buckets: same project, hour and own tags. */
const sameHourAndTags = (a: AudienceSpan, b: AudienceSpan) =>
  a.projectId === b.projectId &&
  bucketStart(a.startedAt, "hour") === bucketStart(b.startedAt, "hour") &&
  a.tags.length === b.tags.length &&
  a.tags.every((tag, index) => tag === b.tags[index]);

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
  type SignedEntry = { entry: Entry; sign: number };
  const byKey = new Map<string, Entry>();
  const entryOf = (projectId: string, bucketSize: "hour" | "day", start: number, pair: string): Entry => {
    const id = `${projectId}\n${bucketSize}\n${start}\n${pair}`;
    let entry = byKey.get(id);
    if (!entry) {
      const split = pair.indexOf("\n");
      entry = {
        row: newDimensionRow(
          projectId,
          bucketSize,
          start,
          pair.slice(0, split) as AudienceDimension,
          pair.slice(split + 1),
        ),
        histogram: new DeltaHistogram(),
      };
      byKey.set(id, entry);
    }
    return entry;
  };
  // The entries a span adds to (pairs × hour and day) per project, hour, audience and own tags: most spans share
  // them with the span before, many traces of a batch with another trace (a session's, a tag's).
  const sharedEntries = new Map<string, SignedEntry[]>();
  const signedEntries = (span: AudienceSpan, audience: Audience, before: Audience | undefined) =>
    signedPairs(audience, before, span.tags).flatMap(([pair, sign]) =>
      HOUR_AND_DAY.map((bucketSize) => ({
        entry: entryOf(span.projectId, bucketSize, bucketStart(span.startedAt, bucketSize), pair),
        sign,
      })),
    );
  for (const { spans, audience, before } of groups) {
    let previous: AudienceSpan | undefined;
    let entries: SignedEntry[] = [];
    for (const span of spans) {
      if (previous === undefined || !sameHourAndTags(previous, span)) {
        if (before !== undefined) entries = signedEntries(span, audience, before);
        else {
          const hour = bucketStart(span.startedAt, "hour");
          const id = JSON.stringify([
            span.projectId,
            hour,
            audience.userId,
            audience.sessionId,
            audience.tags,
            span.tags,
          ]);
          let shared = sharedEntries.get(id);
          if (!shared) {
            shared = signedEntries(span, audience, undefined);
            sharedEntries.set(id, shared);
          }
          entries = shared;
        }
      }
      previous = span;
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
  type Trace = (typeof traces)[number];
  const byKey = new Map<string, TraceDimensionRollupRow>();
  const rowsOf = (trace: Trace) =>
    [...audiencePairs(trace)].flatMap((pair) => {
      const split = pair.indexOf("\n");
      return HOUR_AND_DAY.map((bucketSize) => {
        const start = bucketStart(trace.startedAt, bucketSize);
        const id = `${trace.projectId}\n${bucketSize}\n${start}\n${pair}`;
        let row = byKey.get(id);
        if (!row) {
          row = {
            projectId: trace.projectId,
            bucketSize,
            bucketStart: start,
            dimension: pair.slice(0, split) as AudienceDimension,
            value: pair.slice(split + 1),
            traceCount: 0,
          };
          byKey.set(id, row);
        }
        return row;
      });
    });
  // The rows a trace counts in, per project, hour and audience: many traces of a batch share them.
  const sharedRows = new Map<string, TraceDimensionRollupRow[]>();
  for (const trace of traces) {
    const id = JSON.stringify([
      trace.projectId,
      bucketStart(trace.startedAt, "hour"),
      trace.userId,
      trace.sessionId,
      trace.tags,
    ]);
    let rows = sharedRows.get(id);
    if (!rows) {
      rows = rowsOf(trace);
      sharedRows.set(id, rows);
    }
    for (const row of rows) row.traceCount = (row.traceCount as number) + (trace.count ?? 1);
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
