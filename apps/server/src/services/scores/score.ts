import type { Database, ScoreDataType, ScoreSource } from "../../store/schema.ts";

/** A score's value as callers send and read it: a number, a category, or a boolean. */
export type ScoreValue = number | string | boolean;

/** A score as the API shows it. */
export interface Score {
  id: string;
  projectId: string;
  traceId: string;
  spanId: string | null;
  name: string;
  value: ScoreValue;
  dataType: ScoreDataType;
  comment: string | null;
  source: ScoreSource;
  evaluatorId: string | null;
  runId: string | null;
  authorKeyId: string | null;
  createdAt: number;
  updatedAt: number;
}

/** The data type a value has (a number, a string category, a boolean). */
export function dataTypeOf(value: ScoreValue): ScoreDataType {
  if (typeof value === "number") return "numeric";
  return typeof value === "boolean" ? "boolean" : "categorical";
}

/** The two value columns of a value: a boolean is stored as 1 / 0 so that it averages like a number. */
export function storedValue(value: ScoreValue): { numberValue: number | null; stringValue: string | null } {
  if (typeof value === "string") return { numberValue: null, stringValue: value };
  return { numberValue: typeof value === "boolean" ? Number(value) : value, stringValue: null };
}

export function scoreValueOf(row: Pick<Database["scores"], "dataType" | "numberValue" | "stringValue">): ScoreValue {
  if (row.dataType === "categorical") return row.stringValue ?? "";
  const numeric = Number(row.numberValue);
  return row.dataType === "boolean" ? numeric === 1 : numeric;
}

export function toScore(row: Database["scores"]): Score {
  return {
    id: row.id,
    projectId: row.projectId,
    traceId: row.traceId,
    spanId: row.spanId,
    name: row.name,
    value: scoreValueOf(row),
    dataType: row.dataType,
    comment: row.comment,
    source: row.source,
    evaluatorId: row.evaluatorId,
    runId: row.runId,
    authorKeyId: row.authorKeyId,
    createdAt: Number(row.createdAt),
    updatedAt: Number(row.updatedAt),
  };
}
