/**
 * Cursor pagination on the keyset (createdAt, id), or (startedAt, id) for log search, or (score, createdAt, id)
 * for evaluation results. A cursor is `base64url(payload).signature`: the payload holds the position and a hash
 * of the query it belongs to (with the workspace that asked), the signature (HMAC-SHA256 with the database's secret) makes a tampered cursor
 * detectable. A cursor of another query or a tampered one is INVALID_CURSOR.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { type RawBuilder, type SelectQueryBuilder, type SqlBool, sql } from "kysely";
import { ApiError } from "../errors.ts";
import type { ServiceContext } from "./context.ts";

/** A column a keyset orders by before the id, which breaks ties. */
export type KeysetColumn = "createdAt" | "startedAt" | "score";

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

/** The keyset columns' values, then the id. */
type Position = [...keys: number[], id: string];

const invalidCursor = () => new ApiError("INVALID_CURSOR", "The cursor is invalid or belongs to another query.");

function sign(secret: string, payload: string): Buffer {
  return createHmac("sha256", secret).update(payload).digest();
}

/**
 * Identifies a query independently of its page: the caller's workspace, and everything that shapes the result
 * except limit and cursor. A cursor of another workspace is foreign, even for the same query.
 */
export function queryHash(operation: string, workspaceId: string, query: Record<string, unknown>): string {
  const canonical = Object.keys(query)
    .sort()
    .filter((key) => key !== "limit" && key !== "cursor" && query[key] !== undefined)
    .map((key) => [key, query[key]]);
  return createHash("sha256")
    .update(JSON.stringify([operation, workspaceId, canonical]))
    .digest("base64url")
    .slice(0, 22);
}

export function encodeCursor(secret: string, hash: string, position: Position): string {
  const payload = Buffer.from(JSON.stringify({ v: 1, q: hash, k: position })).toString("base64url");
  return `${payload}.${sign(secret, payload).toString("base64url")}`;
}

/** `keys`: how many keyset columns come before the id. */
export function decodeCursor(secret: string, hash: string, cursor: string, keys = 1): Position {
  const [payload, signature, extra] = cursor.split(".");
  if (!payload || !signature || extra !== undefined) throw invalidCursor();
  const expected = sign(secret, payload);
  const presented = Buffer.from(signature, "base64url");
  if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) throw invalidCursor();
  try {
    const { v, q, k } = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    const valid =
      Array.isArray(k) &&
      k.length === keys + 1 &&
      k.slice(0, keys).every((key) => typeof key === "number") &&
      typeof k[keys] === "string";
    if (v !== 1 || q !== hash || !valid) throw invalidCursor();
    return k as Position;
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
  columns: readonly KeysetColumn[],
  position: Position,
  direction: "asc" | "desc",
): RawBuilder<SqlBool> {
  const op = sql.raw(direction === "asc" ? ">" : "<");
  const refs = [...columns, "id"].map((column) => sql.ref(`${table}.${column}`));
  return sql<SqlBool>`(${sql.join(refs)}) ${op} (${sql.join(position)})`;
}

/**
 * The page parameters and nothing else. A list verb passes what is left of its query once it has read its
 * filters: a query parameter it does not read is left there, and fails to compile.
 */
type PageOnly<P> = P & Record<Exclude<keyof P, keyof PageQuery>, never>;

/**
 * One page of `select` (rows of `table`, which has `id` and the keyset columns, `createdAt` unless `keyset`
 * says otherwise), ordered by `page.sort`'s direction (default descending) on every keyset column, then the
 * id, and cut by the keyset.
 */
export async function paginate<
  DB,
  TB extends keyof DB,
  Row extends { id: string } & { [C in K]: number },
  Item,
  P extends PageQuery,
  K extends KeysetColumn = "createdAt",
>(
  ctx: ServiceContext,
  options: {
    operation: string;
    /** Everything else that shapes the result: a cursor is valid only with the values it was issued for. */
    filters: Record<string, unknown>;
    page: PageOnly<P>;
    table: string;
    select: SelectQueryBuilder<DB, TB, Row>;
    toItem: (row: Row) => Item;
    /** One column, or several in order (e.g. score then createdAt). */
    keyset?: K | readonly K[];
    /**
     * Columns (qualified) that a later page's first keyset value bounds as well, by a plain comparison: the
     * keyset's row comparison implies it, but PostgreSQL prunes partitions by the plain one only (ADR 0027).
     */
    alsoBound?: readonly string[];
  },
): Promise<Page<Item>> {
  const { page, table } = options;
  const keyset = options.keyset ?? "createdAt";
  const columns: readonly KeysetColumn[] = typeof keyset === "string" ? [keyset] : keyset;
  const limit = page.limit ?? 50;
  const direction = page.sort?.endsWith(":asc") ? "asc" : "desc";
  const hash = queryHash(options.operation, ctx.principal.workspaceId, { ...options.filters, sort: page.sort });
  let select = options.select;
  if (page.cursor !== undefined) {
    const position = decodeCursor(ctx.cursorSecret, hash, page.cursor, columns.length);
    select = select.where(after(table, columns, position, direction));
    const op = direction === "asc" ? ">=" : "<=";
    for (const column of options.alsoBound ?? []) {
      select = select.where(sql<SqlBool>`${sql.ref(column)} ${sql.raw(op)} ${position[0]}`);
    }
  }
  const order = sql.raw(direction);
  for (const column of [...columns, "id"]) select = select.orderBy(sql`${sql.ref(`${table}.${column}`)} ${order}`);
  const rows = await select.limit(limit + 1).execute();
  const hasMore = rows.length > limit;
  const items = rows.slice(0, limit);
  const last = items.at(-1) as ({ id: string } & Record<KeysetColumn, number>) | undefined;
  return {
    items: items.map(options.toItem),
    pagination: {
      limit,
      returned: items.length,
      hasMore,
      nextCursor:
        hasMore && last
          ? encodeCursor(ctx.cursorSecret, hash, [...columns.map((column) => last[column]), last.id])
          : null,
    },
  };
}
