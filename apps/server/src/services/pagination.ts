/**
 * Cursor pagination on the keyset (createdAt, id), or (startedAt, id) for log search. A cursor is
 * `base64url(payload).signature`: the payload holds the position and a hash of the query it belongs to, the
 * signature (HMAC-SHA256 with the database's secret) makes a tampered cursor detectable. A cursor of another
 * query or a tampered one is INVALID_CURSOR.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { type RawBuilder, type SelectQueryBuilder, type SqlBool, sql } from "kysely";
import { ApiError } from "../errors.ts";
import type { ServiceContext } from "./context.ts";

/** The time column a keyset starts with; the id breaks ties. */
export type KeysetColumn = "createdAt" | "startedAt";

export type SortOrder = `${KeysetColumn}:${"asc" | "desc"}`;

export interface PageQuery {
  limit?: number;
  cursor?: string;
  sort?: SortOrder;
}

export interface Page<T> {
  items: T[];
  pagination: { limit: number; returned: number; hasMore: boolean; nextCursor: string | null };
}

type Position = [time: number, id: string];

const invalidCursor = () => new ApiError("INVALID_CURSOR", "The cursor is invalid or belongs to another query.");

function sign(secret: string, payload: string): Buffer {
  return createHmac("sha256", secret).update(payload).digest();
}

/** Identifies a query independently of its page: everything that shapes the result except limit and cursor. */
export function queryHash(operation: string, query: Record<string, unknown>): string {
  const canonical = Object.keys(query)
    .sort()
    .filter((key) => key !== "limit" && key !== "cursor" && query[key] !== undefined)
    .map((key) => [key, query[key]]);
  return createHash("sha256")
    .update(JSON.stringify([operation, canonical]))
    .digest("base64url")
    .slice(0, 22);
}

export function encodeCursor(secret: string, hash: string, position: Position): string {
  const payload = Buffer.from(JSON.stringify({ v: 1, q: hash, k: position })).toString("base64url");
  return `${payload}.${sign(secret, payload).toString("base64url")}`;
}

export function decodeCursor(secret: string, hash: string, cursor: string): Position {
  const [payload, signature, extra] = cursor.split(".");
  if (!payload || !signature || extra !== undefined) throw invalidCursor();
  const expected = sign(secret, payload);
  const presented = Buffer.from(signature, "base64url");
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) throw invalidCursor();
  try {
    const { v, q, k } = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    if (v !== 1 || q !== hash || !Array.isArray(k) || typeof k[0] !== "number" || typeof k[1] !== "string") {
      throw invalidCursor();
    }
    return [k[0], k[1]];
  } catch {
    throw invalidCursor();
  }
}

/**
 * The keyset condition "after this position" in the given order, as a row-value comparison: both databases
 * turn it into a range of an index on (…, time, id), so a late page costs what the first one does.
 */
function after(
  table: string,
  column: KeysetColumn,
  [time, id]: Position,
  direction: "asc" | "desc",
): RawBuilder<SqlBool> {
  const op = sql.raw(direction === "asc" ? ">" : "<");
  return sql<SqlBool>`(${sql.ref(`${table}.${column}`)}, ${sql.ref(`${table}.id`)}) ${op} (${time}, ${id})`;
}

/**
 * One page of `select` (rows of `table`, which has `id` and the keyset column, `createdAt` unless `keyset`
 * says otherwise), ordered by `query.sort` (default descending) and cut by the keyset.
 */
export async function paginate<
  DB,
  TB extends keyof DB,
  Row extends { id: string } & { [C in K]: number },
  Item,
  K extends KeysetColumn = "createdAt",
>(
  ctx: ServiceContext,
  options: {
    operation: string;
    query: Record<string, unknown> & PageQuery;
    table: string;
    select: SelectQueryBuilder<DB, TB, Row>;
    toItem: (row: Row) => Item;
    keyset?: K;
  },
): Promise<Page<Item>> {
  const { query, table } = options;
  const column: KeysetColumn = options.keyset ?? "createdAt";
  const limit = query.limit ?? 50;
  const direction = query.sort?.endsWith(":asc") ? "asc" : "desc";
  const hash = queryHash(options.operation, query);
  let select = options.select;
  if (query.cursor !== undefined) {
    select = select.where(after(table, column, decodeCursor(ctx.cursorSecret, hash, query.cursor), direction));
  }
  const order = sql.raw(direction);
  const rows = await select
    .orderBy(sql`${sql.ref(`${table}.${column}`)} ${order}`)
    .orderBy(sql`${sql.ref(`${table}.id`)} ${order}`)
    .limit(limit + 1)
    .execute();
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit);
  const last = items.at(-1) as ({ id: string } & Record<KeysetColumn, number>) | undefined;
  return {
    items: items.map(options.toItem),
    pagination: {
      limit,
      returned: items.length,
      hasMore,
      nextCursor: hasMore && last ? encodeCursor(ctx.cursorSecret, hash, [last[column], last.id]) : null,
    },
  };
}
