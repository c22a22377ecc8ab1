/**
 * The `scores` column of the log filter grammar (LogScoreFilter): traces or spans kept by their scores of a
 * name. A trace's scores are those on the trace and on its spans (`scores.traceId`), a span's those on it.
 *
 * A positive condition is `id IN (select owner from scores where projectId, name, value …)`, which the
 * (projectId, name, numberValue) index serves; `not-equals` and `exists: false` are `NOT EXISTS` on the owner's
 * index (traceId or spanId), so that rows without a score of the name match them.
 */
import type { schemas } from "@pharos/contract";
import { type RawBuilder, type SqlBool, sql } from "kysely";
import { invalid } from "../../errors.ts";
import type { LogKind } from "./log-filters.ts";

type Condition = RawBuilder<SqlBool>;
type LogScoreFilter = schemas.LogScoreFilter;

const TABLES = { trace: "logTraces", span: "logSpans" } as const;
const OPERATORS = { gt: ">", gte: ">=", lt: "<", lte: "<=" } as const;
const score = (name: string) => sql.ref(`scores.${name}`);

/** A score's value equals `value` with the same data type (a boolean is stored as 1 / 0). */
function valueEquals(value: schemas.ScoreValue): Condition {
  if (typeof value === "string")
    return sql<SqlBool>`${score("dataType")} = 'categorical' and ${score("stringValue")} = ${value}`;
  const dataType = typeof value === "boolean" ? "boolean" : "numeric";
  return sql<SqlBool>`${score("dataType")} = ${dataType} and ${score("numberValue")} = ${Number(value)}`;
}

/** The condition on a score of the filter's name, or null for `exists` (any score of the name). */
function valueCondition(filter: LogScoreFilter, index: number): Condition | null {
  const { operator, value } = filter;
  if (operator === "exists") {
    if (typeof value !== "boolean") throw invalid(`filters.${index}.value`, "must be a boolean for exists");
    return null;
  }
  if (operator === "equals" || operator === "not-equals") return valueEquals(value);
  if (typeof value !== "number") throw invalid(`filters.${index}.value`, `must be a number for ${operator}`);
  // Cast: PostgreSQL would type an integer value as an integer and compare a fractional one wrongly.
  return sql<SqlBool>`${score("numberValue")} ${sql.raw(OPERATORS[operator])} cast(${value} as double precision)`;
}

/** The filter as a condition on the search's table (`logTraces` or `logSpans`) in `projectId`. */
export function scoreFilterCondition(
  kind: LogKind,
  projectId: string,
  filter: LogScoreFilter,
  index: number,
): Condition {
  const owner = score(kind === "trace" ? "traceId" : "spanId");
  const id = sql.ref(`${TABLES[kind]}.id`);
  const condition = valueCondition(filter, index);
  const ofName = sql<SqlBool>`${score("name")} = ${filter.name}${condition ? sql` and ${condition}` : sql``}`;
  const negative = filter.operator === "not-equals" || (filter.operator === "exists" && filter.value === false);
  if (negative)
    return sql<SqlBool>`not exists (select 1 from ${sql.table("scores")} where ${owner} = ${id} and ${ofName})`;
  return sql<SqlBool>`${id} in (select ${owner} from ${sql.table("scores")} where ${score(
    "projectId",
  )} = ${projectId} and ${ofName})`;
}
