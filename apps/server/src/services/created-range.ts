import { type RawBuilder, type SqlBool, sql } from "kysely";

/** `createdAfter` / `createdBefore` (inclusive Unix ms) of list operations, as a condition on `table`. */
export function createdWithin(
  table: string,
  range: { createdAfter?: number; createdBefore?: number },
): RawBuilder<SqlBool> {
  const createdAt = sql.ref(`${table}.createdAt`);
  const lower = range.createdAfter ?? 0;
  const upper = range.createdBefore ?? Number.MAX_SAFE_INTEGER;
  return sql<SqlBool>`${createdAt} >= ${lower} and ${createdAt} <= ${upper}`;
}
