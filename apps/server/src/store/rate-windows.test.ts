/**
 * The rate limiter's counters, on each adapter: concurrent takes never hand out more than the limit (on
 * PostgreSQL from several connections, as replicas would), a later window replaces the count, an earlier one
 * gets nothing; on PostgreSQL the table is unlogged.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adapters } from "../testing/harness.ts";
import type { ScratchStore } from "./scratch.ts";
import type { Store } from "./store.ts";

describe.each(adapters.map((adapter) => [adapter.name, adapter] as const))("rate windows [%s]", (name, adapter) => {
  let scratch: ScratchStore;
  /** The stores the takes go through: on PostgreSQL three connections, one per would-be replica. */
  let stores: Store[];
  beforeAll(async () => {
    scratch = await adapter.open();
    await scratch.store.migrate();
    stores = name === "postgres" ? [scratch.store, scratch.openAnother(), scratch.openAnother()] : [scratch.store];
  });
  afterAll(() => scratch.dispose());

  it("hands out the limit and no more, however the takes interleave", async () => {
    const takes = Array.from({ length: 60 }, (_, i) =>
      (stores[i % stores.length] as Store).rateWindows.take("w1 other", 60_000, 1 + (i % 4), 100),
    );
    const grants = await Promise.all(takes);
    expect(grants.reduce((total, grant) => total + grant.granted, 0)).toBe(100);
    expect(Math.max(...grants.map((grant) => grant.count))).toBe(100);
    expect(grants.every((grant) => grant.windowStart === 60_000 && grant.count <= 100)).toBe(true);
    // A take that finds the window full gets nothing.
    expect(await scratch.store.rateWindows.take("w1 other", 60_000, 5, 100)).toEqual({
      windowStart: 60_000,
      count: 100,
      granted: 0,
    });
  });

  it.runIf(name === "postgres")(
    "keeps the shared counters in an unlogged table: a take waits for no WAL flush",
    async () => {
      const { rows } = await sql<{ persistence: string }>`
      select relpersistence as persistence from pg_class
      where relname = 'rateLimitWindows' and relnamespace = current_schema()::regnamespace`.execute(scratch.store.db);
      expect(rows).toEqual([{ persistence: "u" }]);
    },
  );

  it("starts a later window from zero and gives nothing of an earlier one", async () => {
    const { rateWindows } = scratch.store;
    expect(await rateWindows.take("w2 other", 60_000, 3, 10)).toEqual({ windowStart: 60_000, count: 3, granted: 3 });
    expect(await rateWindows.take("w2 other", 120_000, 4, 10)).toEqual({ windowStart: 120_000, count: 4, granted: 4 });
    expect(await rateWindows.take("w2 other", 60_000, 4, 10)).toEqual({ windowStart: 120_000, count: 4, granted: 0 });
    // A larger batch than the limit gets the limit.
    expect(await rateWindows.take("w3 other", 60_000, 50, 10)).toEqual({ windowStart: 60_000, count: 10, granted: 10 });
  });
});
