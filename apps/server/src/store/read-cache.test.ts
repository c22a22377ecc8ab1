import type { Kysely } from "kysely";
import { describe, expect, it } from "vitest";
import { adapters } from "../testing/harness.ts";
import { CACHED_TABLES } from "./migrations/0007-cache-generation.ts";
import { type CachedReads, ReadCache, type ReadCacheLimits } from "./read-cache.ts";
import type { Database } from "./schema.ts";

/** One row of each cached table, in an order that satisfies their foreign keys. */
const rows: { [T in keyof Database]?: Database[T] } = {
  workspaces: { id: "w", name: "W", createdAt: 1, updatedAt: 1 },
  apiKeys: {
    id: "k",
    workspaceId: "w",
    name: "K",
    secretHash: "h",
    role: "full",
    projectIds: null,
    createdAt: 1,
    revokedAt: null,
    expiresAt: null,
  },
  projects: {
    id: "p",
    workspaceId: "w",
    title: "P",
    icon: "",
    maskingRules: "[]",
    retentionDays: null,
    createdAt: 1,
    updatedAt: 1,
  },
  deploymentEnvironments: {
    id: "e",
    workspaceId: "w",
    projectId: "p",
    name: "E",
    nameKey: "e",
    createdAt: 1,
    updatedAt: 1,
  },
  prompts: {
    id: "q",
    workspaceId: "w",
    projectId: "p",
    title: "Q",
    icon: "",
    draft: "{}",
    playground: "{}",
    createdAt: 1,
    updatedAt: 1,
  },
  deployments: {
    id: "d",
    workspaceId: "w",
    projectId: "p",
    promptId: "q",
    deploymentEnvironmentId: "e",
    snapshot: "{}",
    createdByKeyId: "k",
    createdAt: 1,
  },
};

describe.each(adapters.map((adapter) => [adapter.name, adapter] as const))("cache generation [%s]", (_, adapter) => {
  it("is bumped by every insert, update and delete of a cached table, and by nothing else", async () => {
    const { store, dispose } = await adapter.open();
    try {
      await store.migrate();
      // Every cached table by name: each has a createdAt to update.
      const db = store.db as never as Kysely<Record<string, { createdAt: number }>>;
      let last = await store.readCacheGeneration();
      const expectBumped = async (what: string) => {
        const generation = await store.readCacheGeneration();
        expect(generation, what).toBeGreaterThan(last);
        last = generation;
      };
      expect(Object.keys(rows)).toEqual(CACHED_TABLES);

      for (const table of CACHED_TABLES) {
        await db
          .insertInto(table)
          .values(rows[table as keyof typeof rows] as never)
          .execute();
        await expectBumped(`insert into ${table}`);
        await db.updateTable(table).set({ createdAt: 2 }).execute();
        await expectBumped(`update ${table}`);
      }
      for (const table of [...CACHED_TABLES].reverse()) {
        await db.deleteFrom(table).execute();
        await expectBumped(`delete from ${table}`);
      }

      await store.db.insertInto("settings").values({ key: "unrelated", value: "1" }).execute();
      // Read while a transaction that bumped it is open, then rolled back: the bump was never committed.
      let readDuring: Promise<number> | undefined;
      await store.db
        .transaction()
        .execute(async (trx) => {
          await trx
            .insertInto("workspaces")
            .values(rows.workspaces as Database["workspaces"])
            .execute();
          readDuring = store.readCacheGeneration();
          throw new Error("roll back");
        })
        .catch(() => {});
      expect(await readDuring).toBe(last);
      expect(await store.readCacheGeneration()).toBe(last);
    } finally {
      await dispose();
    }
  });
});

describe("read cache", () => {
  /** A cache over a generation the test sets, and a loader that counts its calls. */
  function setUp(limits?: Partial<ReadCacheLimits>) {
    const state = { generation: 1, loads: 0 };
    const cache = new ReadCache(async () => state.generation, limits);
    const load = (value: unknown) => async () => {
      state.loads++;
      return value;
    };
    return { state, cache, load };
  }

  it("loads once per key and generation; a new generation loads again", async () => {
    const { state, cache, load } = setUp();

    expect(await (await cache.begin()).get("a", load("one"))).toBe("one");
    expect(await (await cache.begin()).get("a", load("two"))).toBe("one");
    state.generation = 2;
    expect(await (await cache.begin()).get("a", load("three"))).toBe("three");

    expect(state.loads).toBe(2);
    expect(cache.stats).toEqual({ hits: 1, misses: 2 });
  });

  it("lets a request that began before a newer generation neither use nor fill the cache", async () => {
    const { state, cache, load } = setUp();
    await (await cache.begin()).get("a", load("old"));
    const late = await cache.begin();
    state.generation = 2;
    const current = await cache.begin();

    expect(await late.get("a", load("read by the late request"))).toBe("read by the late request");
    expect(await late.get("b", load("not kept"))).toBe("not kept");
    expect(await current.get("b", load("current"))).toBe("current");
    expect(await current.get("a", load("current a"))).toBe("current a");
  });

  it("forgets what it cached when the generation goes back (a restored backup), so a number reached again loads", async () => {
    const { state, cache, load } = setUp();
    state.generation = 5;
    await (await cache.begin()).get("key", load("before the restore"));
    state.generation = 3;
    expect(await (await cache.begin()).get("key", load("restored"))).toBe("restored");
    state.generation = 5;
    expect(await (await cache.begin()).get("key", load("written after the restore"))).toBe("written after the restore");
  });

  it("keeps neither undefined nor a failed load", async () => {
    const { cache, load } = setUp();
    const reads = await cache.begin();
    await reads.get("missing", load(undefined));
    await expect(
      reads.get("failing", async () => {
        throw new Error("database down");
      }),
    ).rejects.toThrow("database down");

    expect(await reads.get("missing", load("found"))).toBe("found");
    expect(await reads.get("failing", load("recovered"))).toBe("recovered");
  });

  /** Which of `keys` the cache still holds: a held key reads without loading. */
  async function held(reads: CachedReads, keys: string[]) {
    const kept: string[] = [];
    for (const key of keys) {
      let loaded = false;
      await reads.get(key, async () => {
        loaded = true;
        return key;
      });
      if (!loaded) kept.push(key);
    }
    return kept;
  }

  it("holds at most maxEntries, dropping the least recently used", async () => {
    const { cache, load } = setUp({ maxEntries: 2 });
    const reads = await cache.begin();
    await reads.get("a", load("a"));
    await reads.get("b", load("b"));
    await reads.get("a", load("a"));
    await reads.get("c", load("c"));

    expect(await held(reads, ["a", "c"])).toEqual(["a", "c"]);
    expect(await held(reads, ["b"])).toEqual([]);
  });

  it("holds at most maxBytes of values, and never a value over an eighth of it", async () => {
    // Each value below is 1,002 bytes of JSON text.
    const { cache, load } = setUp({ maxBytes: 10_000 });
    const reads = await cache.begin();
    const value = "x".repeat(1_000);
    for (const key of ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]) await reads.get(key, load(value));
    await reads.get("big", load("y".repeat(1_300)));

    expect(await held(reads, ["big"])).toEqual([]);
    expect(await held(reads, ["b", "c", "d", "e", "f", "g", "h", "i", "j"])).toHaveLength(9);
    expect(await held(reads, ["a"])).toEqual([]);
  });
});
