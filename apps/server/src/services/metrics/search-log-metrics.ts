import type { schemas } from "@pharos/contract";
import { sql } from "kysely";
import { type ErrorDetail, failIfInvalid, notFound } from "../../errors.ts";
import type { ServiceContext } from "../context.ts";
import type { BodyOf, Unread } from "../operation-input.ts";
import { requireProject } from "../projects/project.ts";
import { requirePromptsOfProject } from "../prompts/prompt.ts";
import { addHistogram, addHistogramText, Histogram, percentiles } from "./latency-histogram.ts";
import { AUDIENCE_DIMENSIONS, type AudienceDimension, BUCKET_MS } from "./rollups.ts";

type MetricName = schemas.LogMetricName;
type Dimension = schemas.LogMetricDimension;
type Values = schemas.LogMetricValues;
type GroupKey = schemas.LogMetricGroupKey;

/** The most buckets one query spans, and the most groups it answers (the spec's caps). */
export const MAX_BUCKETS = 1_440;
export const MAX_GROUPS = 100;

const SPAN_DIMENSIONS = new Set<Dimension>(["model", "provider", "promptId", "deploymentEnvironmentId", "contentType"]);
const SCORE_METRICS = new Set<MetricName>(["scoreCount", "scoreAverage"]);
const PERCENTILES = { latencyP50: 0.5, latencyP90: 0.9, latencyP95: 0.95, latencyP99: 0.99 } as const;
const ANSWERABLE_OPERATORS = new Set(["equals", "not-equals", "in", "not-in"]);
/** The metrics whose value is a sum as it stands (the others are ratios or percentiles). */
const SUMMED_METRICS = ["traceCount", "spanCount", "cost", "inputTokens", "outputTokens", "scoreCount"] as const;
const isSummed = (metric: MetricName): metric is (typeof SUMMED_METRICS)[number] =>
  (SUMMED_METRICS as readonly string[]).includes(metric);
/** The summed columns of the span rollups, each read only when a metric needs it. */
const SUM_COLUMNS = ["spanCount", "failedSpans", "cost", "inputTokens", "outputTokens"] as const;

/*
 * A query's thousands of per-point objects (sums, values, series entries) are made by constructors, not
 * literals. V8 tracks where object and array literals are allocated, and when a young-generation collection
 * falls in a query and finds all of one such site's objects alive, it allocates that site's objects in the old
 * generation from then on, for the life of the process. Each query then left ~1 MB there (with the strings its
 * points refer to), for a full collection every ~200 queries to find, each slowing a few queries two- to
 * threefold: most of the metrics bench's p99 (ADR 0017). Objects made by `new` are not tracked so.
 */

/** Sums of one group in one bucket (or over the window). */
class Sums {
  traceCount = 0;
  spanCount = 0;
  failedSpans = 0;
  cost = 0;
  inputTokens = 0;
  outputTokens = 0;
  /**
   * A point's stored latency histograms, joined by ";" ("" for none), read when its percentiles are (the totals
   * add its points'). Mostly one per point: a string, not an array per point.
   */
  histograms = "";
  scoreCount = 0;
  scoreSum = 0;
}

/** A row of sums read from a rollup table (PostgreSQL's sums of bigints are numeric: read as text). */
interface RolledUp {
  bucketStart: number | string;
  traceCount?: number | string;
  spanCount?: number | string;
  failedSpans?: number | string;
  cost?: number | string;
  inputTokens?: number | string;
  outputTokens?: number | string;
  latencyHistograms?: string | null;
}

type StoredDimension = "model" | "provider" | "promptId" | "deploymentId" | "contentType" | AudienceDimension;

/** A text condition of the filter grammar the rollups can answer: a column's value in (or not in) a set. */
interface ValueCondition {
  values: string[];
  negated: boolean;
}

/**
 * The project's log metrics over a window, from the rollups (ADR 0017): the rows of the window's buckets are
 * read (one index range: project, bucket size, bucket start) and summed per group and bucket here, histograms
 * merged, percentiles read off the merged histograms.
 */
export async function searchLogMetrics(
  ctx: ServiceContext,
  body: BodyOf<"searchLogMetrics">,
): Promise<schemas.LogMetrics> {
  const {
    projectId,
    from: givenFrom,
    to: givenTo,
    bucket,
    metrics,
    groupBy = [],
    model,
    provider,
    promptId,
    deploymentEnvironmentId,
    userId,
    sessionId,
    tag,
    filters = [],
    ...unread
  } = body;
  unread satisfies Unread;

  const issues: ErrorDetail[] = [];
  const size = BUCKET_MS[bucket];
  const from = Math.floor(givenFrom / size) * size;
  const to = Math.ceil(givenTo / size) * size;
  if (givenTo <= givenFrom) issues.push({ field: "to", issue: "must be after from" });
  else if ((to - from) / size > MAX_BUCKETS) {
    issues.push({
      field: "to",
      issue: `the window holds ${(to - from) / size} ${bucket} buckets, more than the ${MAX_BUCKETS} a query may span`,
    });
  }
  duplicates(metrics, "metrics", issues);
  duplicates(groupBy, "groupBy", issues);

  // Traces, spans and scores are rolled up apart: a query measures one of them.
  const scoreQuery = metrics.some((metric) => SCORE_METRICS.has(metric));
  if (scoreQuery) {
    scoreQueryIssues(body, issues);
    failIfInvalid(issues);
    const project = await requireProject(ctx, projectId);
    return scoreMetrics(ctx, project.id, { bucket, from, to, metrics });
  }
  const traceQuery = metrics.includes("traceCount");
  if (traceQuery && metrics.length > 1) {
    issues.push({ field: "metrics", issue: "traceCount cannot be asked together with span measures" });
  }
  // The trace-side dimensions (user, session, tag): conditions on the per-dimension rollups' values.
  const audience = audienceConditions(body, traceQuery, issues);
  groupBy.forEach((dimension, index) => {
    if (traceQuery && SPAN_DIMENSIONS.has(dimension)) {
      issues.push({
        field: `groupBy.${index}`,
        issue: `traceCount cannot be grouped by the span dimension ${dimension}`,
      });
    }
    if (dimension === "scoreName") {
      issues.push({ field: `groupBy.${index}`, issue: "only scoreCount and scoreAverage can be grouped by scoreName" });
    }
    if (!traceQuery && dimension === "traceName") {
      issues.push({ field: `groupBy.${index}`, issue: "only traceCount can be grouped by traceName" });
    }
  });
  if (traceQuery) {
    for (const field of ["model", "provider", "promptId", "deploymentEnvironmentId"] as const) {
      if (body[field] !== undefined) issues.push({ field, issue: "filters spans: not allowed with traceCount" });
    }
  }
  const contentType: ValueCondition[] = [];
  const traceName: ValueCondition[] = [];
  filters.forEach((filter, index) => {
    const field = `filters.${index}`;
    if (isAudience(filter.column)) return; // read by audienceConditions
    const answerable =
      (filter.column === "contentType" || filter.column === "name") && ANSWERABLE_OPERATORS.has(filter.operator);
    if (!answerable) {
      issues.push({
        field,
        issue:
          "not answerable from the metrics rollups: only contentType, name, userId and sessionId with equals, not-equals, in or not-in",
      });
      return;
    }
    const { value } = filter as { value: string | string[] };
    const condition = { values: Array.isArray(value) ? value : [value], negated: filter.operator.startsWith("not-") };
    if (filter.column === "contentType") {
      if (traceQuery) issues.push({ field, issue: "contentType filters spans: not allowed with traceCount" });
      contentType.push(condition);
    } else {
      if (!traceQuery) issues.push({ field, issue: "name filters traces by name: allowed with traceCount only" });
      traceName.push(condition);
    }
  });
  failIfInvalid(issues);

  const project = await requireProject(ctx, projectId);
  if (promptId !== undefined) await requirePromptsOfProject(ctx, project.id, [promptId]);
  const environments = await environmentsOf(ctx, project.id, groupBy, deploymentEnvironmentId);

  // A group's id is the values of its key (idPart); its key object is built from its first row only: the rows
  // of a query number thousands, its groups a few.
  const groups: Groups = new Map();
  const add = <Row extends RolledUp>(id: string, keyOf: (row: Row) => GroupKey, start: number, row: Row) => {
    let group = groups.get(id);
    if (!group) {
      group = { key: keyOf(row), totals: new Sums(), series: new Map() };
      groups.set(id, group);
    }
    let point = group.series.get(start);
    if (!point) {
      point = new Sums();
      group.series.set(start, point);
    }
    addRow(group.totals, row);
    addRow(point, row);
    if (row.latencyHistograms) {
      point.histograms =
        point.histograms === "" ? row.latencyHistograms : `${point.histograms};${row.latencyHistograms}`;
    }
  };

  // Users and sessions may number thousands per hour: grouped by one, only the largest groups' rows are read.
  let cut = false;
  const largest = await largestValues(ctx, traceQuery, project.id, { bucket, from, to }, audience, groupBy);
  if (largest?.values.length === 0) return answer(groups, () => 0, { bucket, from, to, metrics });
  if (largest) {
    audience.conditions.push({ operator: "in", values: largest.values });
    cut = largest.truncated;
  }
  if (traceQuery && audience.dimension !== undefined) {
    const rows = await audienceTraceRows(ctx, project.id, { bucket, from, to }, audience);
    const dimension = groupBy.includes(audience.dimension) ? audience.dimension : undefined;
    const keyOf = (row: (typeof rows)[number]): GroupKey => (dimension ? { [dimension]: row.value || null } : {});
    for (const row of rows) add(dimension ? idPart(row.value || null) : "", keyOf, Number(row.bucketStart), row);
  } else if (traceQuery) {
    const rows = await ctx.db
      .selectFrom("logTraceRollups")
      .select(["bucketStart", "traceName", "traceCount"])
      .where("projectId", "=", project.id)
      .where("bucketSize", "=", bucket)
      .where("bucketStart", ">=", from)
      .where("bucketStart", "<", to)
      .execute();
    const grouped = groupBy.includes("traceName");
    const keyOf = (row: (typeof rows)[number]): GroupKey => (grouped ? { traceName: row.traceName } : {});
    for (const row of rows) {
      if (!traceName.every((condition) => matches(condition, row.traceName))) continue;
      add(grouped ? idPart(row.traceName) : "", keyOf, Number(row.bucketStart), row);
    }
  } else {
    const columns = [
      ...new Set(
        groupBy.map((dimension) =>
          dimension === "deploymentEnvironmentId" ? "deploymentId" : (dimension as StoredDimension),
        ),
      ),
    ];
    // The span conditions, on stored columns (an environment is its deployments).
    const conditions: { column: StoredDimension; operator: "in" | "not in"; values: string[] }[] = [];
    if (model !== undefined) conditions.push({ column: "model", operator: "in", values: [model] });
    if (provider !== undefined) conditions.push({ column: "provider", operator: "in", values: [provider] });
    if (promptId !== undefined) conditions.push({ column: "promptId", operator: "in", values: [promptId] });
    for (const { values, negated } of contentType) {
      conditions.push({ column: "contentType", operator: negated ? "not in" : "in", values });
    }
    for (const { operator, values } of audience.conditions) {
      conditions.push({ column: audience.dimension as AudienceDimension, operator, values });
    }
    if (deploymentEnvironmentId !== undefined) {
      const deployments = [...environments].flatMap(([deployment, environment]) =>
        environment === deploymentEnvironmentId ? [deployment] : [],
      );
      if (deployments.length === 0) return answer(groups, () => 0, { bucket, from, to, metrics });
      conditions.push({ column: "deploymentId", operator: "in", values: deployments });
    }
    const needsHistogram = metrics.some((metric) => metric in PERCENTILES);
    // Only the sums asked for (the span count always: it orders the groups): fewer values for the driver to read.
    const sums = SUM_COLUMNS.filter(
      (column) => column === "spanCount" || metrics.includes(column === "failedSpans" ? "errorRate" : column),
    );
    const involved = new Set([...columns, ...conditions.map((condition) => condition.column)]);
    let rows: (RolledUp & Partial<Record<StoredDimension | "value", string>>)[];
    // A row's value of a grouping column: a per-dimension row has only its own dimension's, as `value`.
    let valueIn = (row: (typeof rows)[number], column: StoredDimension) => row[column] as string;
    if (bucket !== "minute" && involved.size <= 1) {
      // One dimension (or none) in hour or day buckets: the per-dimension rollups hold a row per point.
      const dimension = [...involved][0] ?? "";
      let select = ctx.db
        .selectFrom("logSpanDimensionRollups")
        .select(["bucketStart", "value", ...sums])
        .$if(needsHistogram, (query) => query.select("latencyHistogram as latencyHistograms"))
        .where("projectId", "=", project.id)
        .where("bucketSize", "=", bucket)
        .where("dimension", "=", dimension)
        .where("bucketStart", ">=", from)
        .where("bucketStart", "<", to);
      for (const { operator, values } of conditions) select = select.where("value", operator, values);
      rows = await select.execute();
      valueIn = (row) => row.value as string;
    } else {
      // Summed by the database per bucket and stored column of the grouping: one row per point (the
      // environment's per deployment, merged below), its histograms joined into one text. Never a trace-side
      // dimension here: those are kept per dimension only (audienceConditions).
      const combination = columns as Exclude<StoredDimension, AudienceDimension>[];
      let select = ctx.db
        .selectFrom("logSpanRollups")
        .select((eb) => ["bucketStart", ...sums.map((column) => eb.fn.sum<number>(column).as(column))])
        .select(combination)
        .$if(needsHistogram, (query) =>
          query.select(ctx.store.sql.joinedTexts(sql.ref("latencyHistogram"), ";").as("latencyHistograms")),
        )
        .where("projectId", "=", project.id)
        .where("bucketSize", "=", bucket)
        .where("bucketStart", ">=", from)
        .where("bucketStart", "<", to)
        .groupBy(["bucketStart", ...combination]);
      for (const { column, operator, values } of conditions) {
        select = select.where(column as Exclude<StoredDimension, AudienceDimension>, operator, values);
      }
      rows = await select.execute();
    }
    const keyed = groupBy.filter(
      (dimension): dimension is Exclude<Dimension, "traceName" | "scoreName"> =>
        dimension !== "traceName" && dimension !== "scoreName",
    );
    const keyValue = (row: (typeof rows)[number], dimension: (typeof keyed)[number]): string | null => {
      if (dimension === "deploymentEnvironmentId") return environments.get(valueIn(row, "deploymentId")) ?? null;
      const value = valueIn(row, dimension);
      return value === "" ? null : value;
    };
    const keyOf = (row: (typeof rows)[number]): GroupKey =>
      Object.fromEntries(keyed.map((dimension) => [dimension, keyValue(row, dimension)]));
    for (const row of rows) {
      let id = "";
      for (const dimension of keyed) id += idPart(keyValue(row, dimension));
      add(id, keyOf, Number(row.bucketStart), row);
    }
  }

  const answered = answer(groups, (sums) => (traceQuery ? sums.traceCount : sums.spanCount), {
    bucket,
    from,
    to,
    metrics,
  });
  return cut ? { ...answered, truncated: true } : answered;
}

/**
 * A key value's part of its group's id, one to one: U+0001, the value and U+0000 (which no stored value holds), or
 * U+0002 U+0000 for none. Groups of equal counts are so ordered by their keys' values, with none last.
 */
const idPart = (value: string | null) => (value === null ? "\u0002\u0000" : `\u0001${value}\u0000`);

function addRow(sums: Sums, row: RolledUp): void {
  sums.traceCount += Number(row.traceCount ?? 0);
  sums.spanCount += Number(row.spanCount ?? 0);
  sums.failedSpans += Number(row.failedSpans ?? 0);
  sums.cost += Number(row.cost ?? 0);
  sums.inputTokens += Number(row.inputTokens ?? 0);
  sums.outputTokens += Number(row.outputTokens ?? 0);
}

interface Window {
  bucket: schemas.LogMetricBucket;
  from: number;
  to: number;
  metrics: readonly MetricName[];
}

type Groups = Map<string, { key: GroupKey; totals: Sums; series: Map<number, Sums> }>;

/**
 * The answer: groups with anything counted, largest first (then by key), at most MAX_GROUPS of them. Each
 * point's histograms are read into one reused histogram, whose counts are then added to its group's totals.
 */
function answer(groups: Groups, count: (sums: Sums) => number, { bucket, from, to, metrics }: Window) {
  const ordered = [...groups.entries()]
    .filter(([, group]) => count(group.totals) > 0)
    .sort(([a, left], [b, right]) => count(right.totals) - count(left.totals) || (a < b ? -1 : a > b ? 1 : 0));
  const valuesOf = valuesReader(metrics);
  const point = new Histogram();
  return {
    bucket,
    from,
    to,
    groups: ordered.slice(0, MAX_GROUPS).map(([, group]) => {
      const totals = new Histogram();
      // Points were added in the order of the rows, which is mostly the buckets' already.
      const starts = [...group.series.keys()].sort((a, b) => a - b);
      const series: { start: number; values: Values }[] = [];
      for (const start of starts) {
        const sums = group.series.get(start) as Sums;
        if (count(sums) <= 0) continue;
        point.clear();
        if (sums.histograms !== "") addHistogramText(point, sums.histograms);
        addHistogram(totals, point);
        series.push(new SeriesPoint(start, valuesOf(sums, point)));
      }
      return { key: group.key, totals: valuesOf(group.totals, totals), series };
    }),
    truncated: ordered.length > MAX_GROUPS,
  };
}

/** Score measures stand alone: grouped by scoreName, with no other measure, dimension or filter. */
function scoreQueryIssues(body: BodyOf<"searchLogMetrics">, issues: ErrorDetail[]): void {
  const { metrics, groupBy = [], filters = [] } = body;
  metrics.forEach((metric, index) => {
    if (!SCORE_METRICS.has(metric)) {
      issues.push({ field: `metrics.${index}`, issue: `${metric} cannot be asked together with score measures` });
    }
  });
  if (!groupBy.includes("scoreName")) {
    issues.push({
      field: "groupBy",
      issue: "score measures must be grouped by scoreName: averaging different scores together means nothing",
    });
  }
  groupBy.forEach((dimension, index) => {
    if (dimension !== "scoreName") {
      issues.push({ field: `groupBy.${index}`, issue: `score measures cannot be grouped by ${dimension}` });
    }
  });
  for (const field of ["model", "provider", "promptId", "deploymentEnvironmentId"] as const) {
    if (body[field] !== undefined) issues.push({ field, issue: "filters spans: not allowed with score measures" });
  }
  for (const field of AUDIENCE_DIMENSIONS) {
    if (body[field] !== undefined) issues.push({ field, issue: "filters logs: not allowed with score measures" });
  }
  filters.forEach((_, index) => {
    issues.push({ field: `filters.${index}`, issue: "score measures take no filters" });
  });
}

/** Score counts and averages per score name, from the score rollups. */
async function scoreMetrics(ctx: ServiceContext, projectId: string, window: Window): Promise<schemas.LogMetrics> {
  const rows = await ctx.db
    .selectFrom("scoreRollups")
    .select(["bucketStart", "scoreName", "scoreCount", "scoreSum"])
    .where("projectId", "=", projectId)
    .where("bucketSize", "=", window.bucket)
    .where("bucketStart", ">=", window.from)
    .where("bucketStart", "<", window.to)
    .execute();
  const groups: Groups = new Map();
  for (const row of rows) {
    let group = groups.get(row.scoreName);
    if (!group) {
      group = { key: { scoreName: row.scoreName }, totals: new Sums(), series: new Map() };
      groups.set(row.scoreName, group);
    }
    const start = Number(row.bucketStart);
    let point = group.series.get(start);
    if (!point) {
      point = new Sums();
      group.series.set(start, point);
    }
    for (const sums of [group.totals, point]) {
      sums.scoreCount += Number(row.scoreCount);
      sums.scoreSum += Number(row.scoreSum);
    }
  }
  return answer(groups, (sums) => sums.scoreCount, window);
}

function duplicates(items: readonly string[], field: string, issues: ErrorDetail[]): void {
  items.forEach((item, index) => {
    if (items.indexOf(item) !== index) issues.push({ field: `${field}.${index}`, issue: `${item} is given twice` });
  });
}

const matches = (condition: ValueCondition, value: string) => condition.values.includes(value) !== condition.negated;

/**
 * Deployment id → environment id of the project's deployments, when the query groups or filters by environment
 * (the rollups hold the deployment: each belongs to one environment). An environment not of the project is 404.
 */
async function environmentsOf(
  ctx: ServiceContext,
  projectId: string,
  groupBy: readonly Dimension[],
  environmentId: string | undefined,
): Promise<Map<string, string>> {
  if (environmentId !== undefined) {
    const environment = await ctx.db
      .selectFrom("deploymentEnvironments")
      .select("id")
      .where("projectId", "=", projectId)
      .where("id", "=", environmentId)
      .executeTakeFirst();
    if (!environment) throw notFound("Deployment environment");
  } else if (!groupBy.includes("deploymentEnvironmentId")) {
    return new Map();
  }
  const deployments = await ctx.db
    .selectFrom("deployments")
    .select(["id", "deploymentEnvironmentId"])
    .where("projectId", "=", projectId)
    .execute();
  return new Map(deployments.map((row) => [row.id, row.deploymentEnvironmentId]));
}

/** A point's or group's values: the asked metrics' (see Sums on why a class). */
class PointValues {}

/** A point of a group's series. */
class SeriesPoint {
  constructor(
    readonly start: number,
    readonly values: Values,
  ) {}
}

/** The values of the asked metrics of a group or point, its percentiles read off its merged histogram. */
function valuesReader(metrics: readonly MetricName[]): (sums: Sums, histogram: Histogram) => Values {
  const wanted = metrics.filter((metric) => metric in PERCENTILES) as (keyof typeof PERCENTILES)[];
  const quantiles = wanted.map((metric) => PERCENTILES[metric]);
  return (sums, histogram) => {
    const values: Values = new PointValues();
    if (wanted.length > 0) {
      const read = percentiles(histogram, quantiles);
      for (let index = 0; index < wanted.length; index++) {
        values[wanted[index] as keyof typeof PERCENTILES] = read[index] ?? null;
      }
    }
    for (const metric of metrics) {
      if (metric === "errorRate") values.errorRate = sums.spanCount === 0 ? null : sums.failedSpans / sums.spanCount;
      else if (metric === "scoreAverage") {
        values.scoreAverage = sums.scoreCount === 0 ? null : sums.scoreSum / sums.scoreCount;
      } else if (isSummed(metric)) values[metric] = sums[metric];
    }
    return values;
  };
}

const isAudience = (name: string): name is AudienceDimension =>
  (AUDIENCE_DIMENSIONS as readonly string[]).includes(name);

/** The trace-side dimension a query involves (at most one) and its conditions on the rollups' `value`. */
interface AudienceQuery {
  dimension?: AudienceDimension;
  conditions: { operator: "in" | "not in"; values: string[] }[];
}

/**
 * The user, session or tag a query groups or filters by (flat `userId` / `sessionId` / `tag`, `userId` and
 * `sessionId` filters). They are kept per single dimension in hour and day buckets (ADR 0017): such a query
 * involves no other dimension and no minute bucket, else a 400 naming the field.
 */
function audienceConditions(
  body: BodyOf<"searchLogMetrics">,
  traceQuery: boolean,
  issues: ErrorDetail[],
): AudienceQuery {
  const { groupBy = [], filters = [], bucket } = body;
  const query: AudienceQuery = { conditions: [] };
  const involved: [AudienceDimension, string][] = [];
  groupBy.forEach((dimension, index) => {
    if (isAudience(dimension)) involved.push([dimension, `groupBy.${index}`]);
  });
  const flat = { userId: body.userId, sessionId: body.sessionId, tag: body.tag };
  for (const dimension of AUDIENCE_DIMENSIONS) {
    const value = flat[dimension];
    if (value === undefined) continue;
    involved.push([dimension, dimension]);
    query.conditions.push({ operator: "in", values: [value] });
  }
  filters.forEach((filter, index) => {
    if (!isAudience(filter.column)) return;
    const field = `filters.${index}`;
    if (!ANSWERABLE_OPERATORS.has(filter.operator)) {
      issues.push({
        field,
        issue: `not answerable from the metrics rollups: ${filter.column} takes equals, not-equals, in or not-in`,
      });
      return;
    }
    involved.push([filter.column, field]);
    const { value } = filter as { value: string | string[] };
    query.conditions.push({
      operator: filter.operator.startsWith("not-") ? "not in" : "in",
      values: Array.isArray(value) ? value : [value],
    });
  });
  const [first] = involved;
  if (first === undefined) return query;
  query.dimension = first[0];
  if (bucket === "minute") {
    issues.push({ field: "bucket", issue: `${first[0]} is kept in hour and day buckets only, not minute` });
  }
  for (const [dimension, field] of involved.slice(1)) {
    if (dimension !== first[0]) {
      issues.push({ field, issue: `${dimension} cannot be combined with ${first[0]}: each is kept on its own` });
    }
  }
  // Any other dimension, grouped or filtered, would need the two together.
  const others = [
    ...groupBy.flatMap((dimension, index) => (isAudience(dimension) ? [] : [`groupBy.${index}`])),
    ...(["model", "provider", "promptId", "deploymentEnvironmentId"] as const).filter(
      (field) => body[field] !== undefined,
    ),
    ...filters.flatMap((filter, index) => (isAudience(filter.column) ? [] : [`filters.${index}`])),
  ];
  for (const field of traceQuery ? others.filter((field) => !SPAN_FIELDS.has(field)) : others) {
    issues.push({ field, issue: `cannot be combined with ${first[0]}: it is kept per single dimension` });
  }
  return query;
}

/** Flat span filters: with traceCount they are refused already, not for the trace-side dimension. */
const SPAN_FIELDS = new Set(["model", "provider", "promptId", "deploymentEnvironmentId"]);

/** Trace counts per point of one trace-side dimension's values (the value as `value`). */
async function audienceTraceRows(
  ctx: ServiceContext,
  projectId: string,
  { bucket, from, to }: { bucket: schemas.LogMetricBucket; from: number; to: number },
  { dimension, conditions }: AudienceQuery,
) {
  let select = ctx.db
    .selectFrom("logTraceDimensionRollups")
    .select(["bucketStart", "value", "traceCount"])
    .where("projectId", "=", projectId)
    .where("bucketSize", "=", bucket as "hour" | "day")
    .where("dimension", "=", dimension as AudienceDimension)
    .where("bucketStart", ">=", from)
    .where("bucketStart", "<", to);
  for (const { operator, values } of conditions) select = select.where("value", operator, values);
  return select.execute();
}

/**
 * When a query groups by a trace-side dimension with more than MAX_GROUPS values counted in the window: the values
 * the answer keeps, found by the database summing each value's count (span or trace) over the window, ordered as
 * `answer` orders groups (largest first, then by key), and whether more had any. Their rows alone are then read,
 * instead of a row per value and point, histograms included, for values the answer would drop.
 */
async function largestValues(
  ctx: ServiceContext,
  traceQuery: boolean,
  projectId: string,
  { bucket, from, to }: { bucket: schemas.LogMetricBucket; from: number; to: number },
  { dimension, conditions }: AudienceQuery,
  groupBy: readonly Dimension[],
): Promise<{ values: string[]; truncated: boolean } | undefined> {
  if (dimension === undefined || !groupBy.includes(dimension)) return undefined;
  // The two tables share the key columns this query reads; only the summed count differs.
  const table = traceQuery ? "logTraceDimensionRollups" : "logSpanDimensionRollups";
  const count = sql<number>`sum(${sql.ref(traceQuery ? "traceCount" : "spanCount")})`;
  let select = ctx.db
    .selectFrom(table as "logSpanDimensionRollups")
    .select(["value", count.as("count")])
    .where("projectId", "=", projectId)
    .where("bucketSize", "=", bucket as "hour" | "day")
    .where("dimension", "=", dimension)
    .where("bucketStart", ">=", from)
    .where("bucketStart", "<", to)
    .groupBy("value")
    .having(count, ">", 0);
  for (const { operator, values } of conditions) select = select.where("value", operator, values);
  const counted = await select.execute();
  if (counted.length <= MAX_GROUPS) return counted.length === 0 ? { values: [], truncated: false } : undefined;
  const keyed = counted.map((row) => ({
    value: row.value,
    count: Number(row.count),
    key: JSON.stringify({ [dimension]: row.value === "" ? null : row.value }),
  }));
  keyed.sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { values: keyed.slice(0, MAX_GROUPS).map((row) => row.value), truncated: true };
}
