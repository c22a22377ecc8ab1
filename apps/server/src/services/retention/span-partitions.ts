/**
 * Retention's side of PostgreSQL's log time partitions (ADR 0027): days are created ahead of the clock, and a
 * day whose rows have all expired — for every project with rows in it — is dropped whole (its spans, attribute
 * and tag rows) instead of deleted row by row. A day shared with a project that keeps its logs longer (or for
 * ever) stays, and its expired spans go with their traces by rows as before (delete-expired-logs.ts). No-ops on
 * SQLite.
 */
import { SPAN_PARTITION_MS } from "../../store/span-partitions.ts";
import type { Store } from "../../store/store.ts";

/** Days made ahead of the clock: a sweeper that stops for this long still finds today's partition made. */
const DAYS_AHEAD = 3;

/** Creates the partitions of yesterday, today and the next days; answers how many it made. */
export function prepareSpanPartitions(store: Store, now: number): Promise<number> {
  const today = Math.floor(now / SPAN_PARTITION_MS) * SPAN_PARTITION_MS;
  return (
    store.spanPartitions?.prepare(today - SPAN_PARTITION_MS, today + (DAYS_AHEAD + 1) * SPAN_PARTITION_MS) ??
    Promise.resolve(0)
  );
}

/**
 * Drops each day whose rows have all expired, given each project's cutoff (projects without a retention have
 * none: their logs never expire). Answers the days dropped and the spans they held.
 */
export async function dropExpiredPartitions(
  store: Store,
  cutoffs: ReadonlyMap<string, number>,
  pause?: () => Promise<void>,
): Promise<{ partitions: number; spans: number }> {
  const dropped = { partitions: 0, spans: 0 };
  if (!store.spanPartitions || cutoffs.size === 0) return dropped;
  // A partition can only be all expired if it ends by the latest cutoff.
  const latest = Math.max(...cutoffs.values());
  for (const partition of await store.spanPartitions.endingBy(latest)) {
    const spans = await store.spanPartitions.dropIfExpired(partition, cutoffs);
    if (spans === undefined) continue;
    dropped.partitions += 1;
    dropped.spans += spans;
    await pause?.();
  }
  return dropped;
}
