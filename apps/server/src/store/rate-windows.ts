/**
 * The counters behind the rate limits (http/rate-limit.ts): per key (a workspace and a class of operation), how
 * many requests the current one-minute window has handed out. The limiter takes requests from a window in
 * batches and spends them locally, so a counter is asked once per batch rather than once per request.
 *
 * PostgreSQL, which several replicas share, keeps them in a table (migration 0009), so the replicas hand out
 * one limit between them; SQLite is served by one process, which keeps them in its memory.
 */
import { type Kysely, sql } from "kysely";
import type { Database } from "./schema.ts";

export interface RateWindowGrant {
  /** The window the counter is at now: later than the one asked for when another process has moved on. */
  windowStart: number;
  /** Requests handed out in that window so far, this grant included. */
  count: number;
  /** How many of those asked for were handed out: fewer than asked once the window is full. */
  granted: number;
}

export interface RateWindows {
  /**
   * Hands out up to `want` requests of the window starting at `windowStart` (Unix ms), without its count
   * passing `limit`. A window later than the counter's replaces it; an earlier one (a process whose clock lags)
   * gets nothing, and the reply names the counter's window.
   */
  take(key: string, windowStart: number, want: number, limit: number): Promise<RateWindowGrant>;
}

/** Counters in this process's memory: what one process serving the database, or counting alone, uses. */
export function processRateWindows(): RateWindows {
  const windows = new Map<string, { windowStart: number; count: number }>();
  return {
    async take(key, windowStart, want, limit) {
      let window = windows.get(key);
      if (!window || window.windowStart < windowStart) {
        window = { windowStart, count: 0 };
        windows.set(key, window);
      }
      const granted = window.windowStart === windowStart ? Math.min(want, Math.max(0, limit - window.count)) : 0;
      window.count += granted;
      return { windowStart: window.windowStart, count: window.count, granted };
    },
  };
}

/**
 * Counters in the `rateLimitWindows` table: one upsert per batch, whose row lock orders the replicas' takes,
 * so together they never hand out more than the limit. The table is unlogged (migration 0009): a take writes
 * no WAL and its commit waits for no flush. The row keeps only the latest window: a new minute
 * overwrites it. `granted` is stored with the count because RETURNING sees only the new row, and the grant
 * depends on the old count.
 */
export function sharedRateWindows(db: Kysely<Database>): RateWindows {
  return {
    async take(key, windowStart, want, limit) {
      const first = sql`least(${want}::bigint, ${limit}::bigint)`;
      const more = sql`least(${want}::bigint, greatest(0, ${limit}::bigint - w."count"))`;
      const { rows } = await sql<RateWindowGrant>`
        insert into "rateLimitWindows" as w ("key", "windowStart", "count", "granted")
        values (${key}, ${windowStart}::bigint, ${first}, ${first})
        on conflict ("key") do update set
          "windowStart" = greatest(w."windowStart", excluded."windowStart"),
          "count" = case
            when excluded."windowStart" > w."windowStart" then excluded."count"
            when excluded."windowStart" = w."windowStart" then w."count" + ${more}
            else w."count" end,
          "granted" = case
            when excluded."windowStart" > w."windowStart" then excluded."granted"
            when excluded."windowStart" = w."windowStart" then ${more}
            else 0 end
        returning "windowStart", "count", "granted"`.execute(db);
      return rows[0] as RateWindowGrant;
    },
  };
}
