/**
 * The conditions of log search (POST /logs/traces, POST /logs/spans) as SQL, shared by both: the project and
 * time range, case-insensitive substrings, and the typed `filters` grammar of LogFilter.
 *
 * Attribute and tag conditions go through the logAttributes / logTags side tables: a positive condition is
 * `id IN (select ownerId …)` on the side table's key (projectId, ownerKind, key|tag, startedAt, ownerId),
 * narrowed by the search's time range (the side rows carry their owner's startedAt); a negative one is
 * `NOT EXISTS (…)` on the same key, so that rows lacking the attribute or tag match it.
 * A search with a text attribute's `equals` is instead driven by that attribute's owners (`drivingOwners`).
 *
 * Null semantics (LogFilter): a column without a value (`null`, or an absent attribute key) matches only the
 * negative operators (`not-equals`, `not-contains`, `not-in`) and `exists: false`.
 */
import type { schemas } from "@pharos/contract";
import { type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool, sql } from "kysely";
import { invalid } from "../../errors.ts";
import type { Database } from "../../store/schema.ts";
import { isOriginKey } from "../otel/span-origins.ts";
import { scoreFilterCondition } from "./score-filter.ts";

export type LogKind = "trace" | "span";
export type LogFilter = schemas.LogFilter;

/** What every condition of one search shares: the kind of row, its project and the `startedAt` range. */
export interface SearchScope {
  kind: LogKind;
  projectId: string;
  startedAfter?: number;
  startedBefore?: number;
  /** The end of the range a later page's keyset condition already bounds (see `searchScope`). */
  boundByCursor?: "startedAfter" | "startedBefore";
}

/**
 * The scope of one page. A later page's cursor is a row of the range (it is bound to the query), so the keyset
 * condition implies the range's end on the side the page moves away from; the conditions that bound an index
 * range leave that end out, because SQLite bounds a range by one condition per side and would take the
 * range's, visiting every index entry between it and the cursor: the later the page, the more.
 */
export function searchScope(
  kind: LogKind,
  projectId: string,
  input: { startedAfter?: number; startedBefore?: number; cursor?: string; sort?: string },
): SearchScope {
  const scope: SearchScope = { kind, projectId, startedAfter: input.startedAfter, startedBefore: input.startedBefore };
  if (input.cursor !== undefined) {
    scope.boundByCursor = input.sort?.endsWith(":asc") ? "startedAfter" : "startedBefore";
  }
  return scope;
}

/** The range's ends that an index range needs. */
function indexRange(scope: SearchScope): { startedAfter?: number; startedBefore?: number } {
  const { startedAfter, startedBefore, boundByCursor } = scope;
  return {
    startedAfter: boundByCursor === "startedAfter" ? undefined : startedAfter,
    startedBefore: boundByCursor === "startedBefore" ? undefined : startedBefore,
  };
}

const TABLES = { trace: "logTraces", span: "logSpans" } as const;

type Sql = RawBuilder<unknown>;
type Condition = RawBuilder<SqlBool>;

const column = (scope: SearchScope, name: string): Sql => sql.ref(`${TABLES[scope.kind]}.${name}`);

/** `%text%` for LIKE, with the wildcards and the escape character of the user's text escaped. */
export function likeSubstring(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** `expression` contains `text`, case-insensitively (both sides lower-cased by the database). */
export function containsText(expression: Sql, text: string): Condition {
  return sql<SqlBool>`lower(${expression}) like lower(${likeSubstring(text)}) escape '\\'`;
}

/** The project and the inclusive `startedAt` range (less an end the cursor implies): every log index's lead. */
export function scopeConditions(scope: SearchScope): Condition[] {
  const startedAt = column(scope, "startedAt");
  const { startedAfter, startedBefore } = indexRange(scope);
  const conditions = [sql<SqlBool>`${column(scope, "projectId")} = ${scope.projectId}`];
  if (startedAfter !== undefined) conditions.push(sql<SqlBool>`${startedAt} >= ${startedAfter}`);
  if (startedBefore !== undefined) conditions.push(sql<SqlBool>`${startedAt} <= ${startedBefore}`);
  return conditions;
}

const COMPARISONS = { equals: "=", "not-equals": "<>", gt: ">", gte: ">=", lt: "<", lte: "<=" } as const;
type Comparison = keyof typeof COMPARISONS;

/** `expression <op> value`; `not-equals` also matches a null expression. */
function compare(expression: Sql, operator: Comparison, value: Sql): Condition {
  if (operator === "not-equals") return sql<SqlBool>`(${expression} is null or ${expression} <> ${value})`;
  return sql<SqlBool>`${expression} ${sql.raw(COMPARISONS[operator])} ${value}`;
}

const valueList = (values: readonly unknown[]) => sql.join(values.map((value) => sql`${value}`));

function textCondition(expression: Sql, filter: schemas.LogTextFilter): Condition {
  switch (filter.operator) {
    case "equals":
      return sql<SqlBool>`${expression} = ${filter.value}`;
    case "not-equals":
      return compare(expression, "not-equals", sql`${filter.value}`);
    case "contains":
      return containsText(expression, filter.value);
    case "not-contains":
      return sql<SqlBool>`(${expression} is null or not (${containsText(expression, filter.value)}))`;
    case "in":
      return sql<SqlBool>`${expression} in (${valueList(filter.value)})`;
    case "not-in":
      return sql<SqlBool>`(${expression} is null or ${expression} not in (${valueList(filter.value)}))`;
    case "exists":
      return filter.value ? sql<SqlBool>`${expression} is not null` : sql<SqlBool>`${expression} is null`;
  }
}

function statusCondition(expression: Sql, filter: schemas.LogStatusFilter): Condition {
  switch (filter.operator) {
    case "equals":
      return sql<SqlBool>`${expression} = ${filter.value}`;
    case "not-equals":
      return sql<SqlBool>`${expression} <> ${filter.value}`;
    case "in":
      return sql<SqlBool>`${expression} in (${valueList(filter.value)})`;
    case "not-in":
      return sql<SqlBool>`${expression} not in (${valueList(filter.value)})`;
  }
}

/** The numeric columns of LogNumberFilter, per kind (LogFilter's table). */
function numberColumn(scope: SearchScope, name: schemas.LogNumberFilter["column"]): Sql {
  const names = {
    trace: {
      latency: "latency",
      cost: "totalCost",
      inputTokens: "totalInputTokens",
      outputTokens: "totalOutputTokens",
    },
    span: { latency: "latency", cost: "cost", inputTokens: "promptTokens", outputTokens: "completionTokens" },
  }[scope.kind];
  if (name !== "totalTokens") return column(scope, names[name]);
  return scope.kind === "trace"
    ? sql`(${column(scope, "totalInputTokens")} + ${column(scope, "totalOutputTokens")})`
    : column(scope, "totalTokens");
}

/** Rows that own a side-table row matching `condition`: `id IN (select ownerId …)` on the side table's index. */
function ownsSideRow(scope: SearchScope, table: "logAttributes" | "logTags", condition: Condition): Condition {
  const side = (name: string) => sql.ref(`${table}.${name}`);
  const range: Sql[] = [];
  if (scope.startedAfter !== undefined) range.push(sql` and ${side("startedAt")} >= ${scope.startedAfter}`);
  if (scope.startedBefore !== undefined) range.push(sql` and ${side("startedAt")} <= ${scope.startedBefore}`);
  return sql<SqlBool>`${column(scope, "id")} in (select ${side("ownerId")} from ${sql.table(table)} where ${side(
    "projectId",
  )} = ${scope.projectId} and ${side("ownerKind")} = ${scope.kind}${sql.join(range, sql``)} and ${condition})`;
}

/**
 * Rows that own no side-table row matching `condition` (a NOT EXISTS on the side table's key, which leads
 * with the owner's project and ends with its startedAt and id).
 */
function ownsNoSideRow(scope: SearchScope, table: "logAttributes" | "logTags", condition: Condition): Condition {
  const side = (name: string) => sql.ref(`${table}.${name}`);
  return sql<SqlBool>`not exists (select 1 from ${sql.table(table)} where ${side("projectId")} = ${column(
    scope,
    "projectId",
  )} and ${side("ownerKind")} = ${scope.kind} and ${side("startedAt")} = ${column(scope, "startedAt")} and ${side(
    "ownerId",
  )} = ${column(scope, "id")} and ${condition})`;
}

function tagCondition(scope: SearchScope, filter: schemas.LogTagsFilter): Condition {
  const tag = sql.ref("logTags.tag");
  switch (filter.operator) {
    case "contains":
      return ownsSideRow(scope, "logTags", sql<SqlBool>`${tag} = ${filter.value}`);
    case "not-contains":
      return ownsNoSideRow(scope, "logTags", sql<SqlBool>`${tag} = ${filter.value}`);
    case "in":
      return ownsSideRow(scope, "logTags", sql<SqlBool>`${tag} in (${valueList(filter.value)})`);
    case "not-in":
      return ownsNoSideRow(scope, "logTags", sql<SqlBool>`${tag} in (${valueList(filter.value)})`);
  }
}

type AttributeValue = string | number | boolean;
type AttributeTable = "logAttributes" | "logOriginAttributes";
type ValueColumn = "textValue" | "numberValue" | "booleanValue";

/** The stored value is one of `values`, with the same JSON type (each type has its own column). */
function attributeIn(value: (name: ValueColumn) => Sql, values: readonly AttributeValue[]): Condition {
  const strings = values.filter((v): v is string => typeof v === "string");
  const numbers = values.filter((v): v is number => typeof v === "number");
  const booleans = values.filter((v): v is boolean => typeof v === "boolean").map((v) => (v ? 1 : 0));
  const alternatives: Condition[] = [];
  if (strings.length > 0) alternatives.push(sql<SqlBool>`${value("textValue")} in (${valueList(strings)})`);
  if (numbers.length > 0) alternatives.push(sql<SqlBool>`${value("numberValue")} in (${valueList(numbers)})`);
  if (booleans.length > 0) alternatives.push(sql<SqlBool>`${value("booleanValue")} in (${valueList(booleans)})`);
  return sql<SqlBool>`(${sql.join(alternatives, sql` or `)})`;
}

/**
 * What an attribute filter asks of one stored attribute row of `table` (the row has the filter's key), and
 * whether the filter is met by a row owning such an attribute (positive) or owning none (negative).
 */
function attributeMatch(
  table: AttributeTable,
  filter: schemas.LogAttributeFilter,
): { positive: boolean; condition: Condition } {
  const value = (name: ValueColumn) => sql.ref(`${table}.${name}`);
  const withKey = (condition?: Condition) =>
    condition === undefined
      ? sql<SqlBool>`${sql.ref(`${table}.key`)} = ${filter.key}`
      : sql<SqlBool>`${sql.ref(`${table}.key`)} = ${filter.key} and ${condition}`;
  switch (filter.operator) {
    case "equals":
    case "not-equals":
      return { positive: filter.operator === "equals", condition: withKey(attributeIn(value, [filter.value])) };
    case "contains":
    case "not-contains":
      return {
        positive: filter.operator === "contains",
        condition: withKey(containsText(value("textValue"), filter.value)),
      };
    case "gt":
    case "gte":
    case "lt":
    case "lte":
      return {
        positive: true,
        condition: withKey(compare(value("numberValue"), filter.operator, sql`${filter.value}`)),
      };
    case "in":
    case "not-in":
      return { positive: filter.operator === "in", condition: withKey(attributeIn(value, filter.value)) };
    case "exists":
      return { positive: filter.value, condition: withKey() };
  }
}

/**
 * An attribute filter. A span's origin attributes (`otel.resource.*`, `otel.scope.*`, `otel.span.kind`: ADR
 * 0013) are indexed through its origin, and per span for spans stored before origins (or written natively
 * with such keys): a span has the attribute when either holds it.
 */
function attributeCondition(scope: SearchScope, filter: schemas.LogAttributeFilter): Condition {
  const own = attributeMatch("logAttributes", filter);
  const owned = own.positive
    ? ownsSideRow(scope, "logAttributes", own.condition)
    : ownsNoSideRow(scope, "logAttributes", own.condition);
  if (scope.kind !== "span" || !isOriginKey(filter.key)) return owned;
  const origin = attributeMatch("logOriginAttributes", filter);
  const originId = column(scope, "originId");
  const origins = sql`select ${sql.ref("logOriginAttributes.originId")} from ${sql.table(
    "logOriginAttributes",
  )} where ${sql.ref("logOriginAttributes.projectId")} = ${scope.projectId} and ${origin.condition}`;
  return own.positive
    ? sql<SqlBool>`(${owned} or ${originId} in (${origins}))`
    : sql<SqlBool>`(${owned} and (${originId} is null or ${originId} not in (${origins})))`;
}

/** The alias of the owners a search is driven by, whose (startedAt, id) are its keyset. */
export const OWNERS = "logOwners";

export interface DrivingOwners {
  /** The filter the owners stand for, which the search need not check again. */
  index: number;
  /** (id, startedAt) of the owners in the scope whose attribute is the filter's text value. */
  owners: SelectQueryBuilder<Database, "logAttributes", { id: string; startedAt: number }>;
}

/**
 * The owners of the first text attribute `equals` filter, if any. Joined to the search's table and paged on
 * their (startedAt, id), which are the owner's, they turn the search into a walk of the (projectId, ownerKind,
 * key, textValue, startedAt, ownerId) index in keyset order, each owner's other conditions checked on its
 * primary key: a page costs its rows divided by the other conditions' share, however common or rare the value,
 * where driving from the time index would also visit every owner without the value, and `id IN (…)` would
 * collect every owner of the time range first.
 */
export function drivingOwners(
  db: Kysely<Database>,
  scope: SearchScope,
  filters: readonly LogFilter[],
): DrivingOwners | undefined {
  // A span's origin attributes are not all among its own rows (see attributeCondition): they cannot drive.
  const index = filters.findIndex(
    (filter) =>
      filter.column === "attributes" &&
      filter.operator === "equals" &&
      typeof filter.value === "string" &&
      !(scope.kind === "span" && isOriginKey(filter.key)),
  );
  const filter = filters[index];
  if (filter?.column !== "attributes" || typeof filter.value !== "string") return undefined;
  let owners = db
    .selectFrom("logAttributes")
    .select(["ownerId as id", "startedAt"])
    .where("projectId", "=", scope.projectId)
    .where("ownerKind", "=", scope.kind)
    .where("key", "=", filter.key)
    .where("textValue", "=", filter.value);
  const { startedAfter, startedBefore } = indexRange(scope);
  if (startedAfter !== undefined) owners = owners.where("startedAt", ">=", startedAfter);
  if (startedBefore !== undefined) owners = owners.where("startedAt", "<=", startedBefore);
  return { index, owners };
}

/**
 * The end user a row belongs to: a trace's own `userId`; for a span, its trace's, read through the trace's
 * primary key (spans do not copy it: an OTLP trace learns its user from whichever of its spans carries one).
 */
function userIdOf(scope: SearchScope): Sql {
  if (scope.kind === "trace") return column(scope, "userId");
  return sql`(select ${sql.ref("userTrace.userId")} from ${sql.table("logTraces")} as ${sql.id("userTrace")} where ${sql.ref(
    "userTrace.id",
  )} = ${column(scope, "traceId")})`;
}

/**
 * The flat `userId` of span search: the span's trace is one of the user's, found through the trace index on
 * (projectId, userId).
 */
export function spanOfUser(projectId: string, userId: string): Condition {
  return sql<SqlBool>`${sql.ref("logSpans.traceId")} in (select ${sql.ref("userTrace.id")} from ${sql.table(
    "logTraces",
  )} as ${sql.id("userTrace")} where ${sql.ref("userTrace.projectId")} = ${projectId} and ${sql.ref(
    "userTrace.userId",
  )} = ${userId})`;
}

/** One filter as a condition on the scope's table; `index` names it in a 400 (`filters.<index>.column`). */
export function filterCondition(scope: SearchScope, filter: LogFilter, index: number): Condition {
  switch (filter.column) {
    case "contentType":
      if (scope.kind === "trace") {
        throw invalid(`filters.${index}.column`, "contentType filters apply to spans only; traces have no content");
      }
      return textCondition(column(scope, "contentType"), filter);
    case "name":
    case "sessionId":
    case "referenceId":
      return textCondition(column(scope, filter.column), filter);
    case "userId":
      return textCondition(userIdOf(scope), filter);
    case "status":
      return statusCondition(column(scope, "status"), filter);
    case "latency":
    case "cost":
    case "inputTokens":
    case "outputTokens":
    case "totalTokens":
      // Cast: some of these columns are integers, and PostgreSQL would type a fractional value as one.
      return compare(
        numberColumn(scope, filter.column),
        filter.operator,
        sql`cast(${filter.value} as double precision)`,
      );
    case "startedAt":
    case "endedAt":
      return compare(column(scope, filter.column), filter.operator, sql`${filter.value}`);
    case "tags":
      return tagCondition(scope, filter);
    case "attributes":
      return attributeCondition(scope, filter);
    case "scores":
      return scoreFilterCondition(scope.kind, scope.projectId, filter, index);
  }
}

/**
 * The filters in a canonical form for the cursor's query hash: fixed key order, without the ignored `type`,
 * and no filters the same as an empty list, so the same search sent with its keys in another order keeps
 * its cursors valid.
 */
export function canonicalFilters(filters: readonly LogFilter[] | undefined) {
  if (filters === undefined || filters.length === 0) return undefined;
  return filters.map((filter) => ({
    column: filter.column,
    key: "key" in filter ? filter.key : undefined,
    name: "name" in filter ? filter.name : undefined,
    operator: filter.operator,
    value: filter.value,
  }));
}
