/**
 * store.transaction: a new transaction commits or rolls back whole, a nested call joins the open one (in a
 * savepoint when asked), SQLite takes its write lock at begin, and a transaction that lost a deadlock runs again.
 */
import SQLite from "better-sqlite3";
import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adapters } from "../testing/harness.ts";
import type { Database } from "./schema.ts";
import { openScratchStore } from "./scratch.ts";
import type { Store } from "./store.ts";

const conflictError = (code: string) => Object.assign(new Error("deadlock detected"), { code });

describe.each(adapters.map((adapter) => [adapter.name, adapter] as const))("store.transaction [%s]", (_, adapter) => {
  let store: Store;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ store, dispose } = await adapter.open());
    await store.migrate();
  });
  afterAll(() => dispose?.());

  const put = (db: Kysely<Database>, key: string) => db.insertInto("settings").values({ key, value: "v" }).execute();
  const keys = async (prefix: string) =>
    (
      await store.db.selectFrom("settings").select("key").where("key", "like", `${prefix}%`).orderBy("key").execute()
    ).map((row) => row.key);

  it("commits the work and returns its result; rolls all of it back when it throws", async () => {
    expect(
      await store.transaction(store.db, async (trx) => {
        await put(trx, "commit-a");
        await put(trx, "commit-b");
        return "done";
      }),
    ).toBe("done");
    expect(await keys("commit-")).toEqual(["commit-a", "commit-b"]);

    await expect(
      store.transaction(store.db, async (trx) => {
        await put(trx, "rollback-a");
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await keys("rollback-")).toEqual([]);
  });

  it("joins the transaction its handle belongs to: a nested call commits and rolls back with it", async () => {
    await store.transaction(store.db, async (outer) => {
      await put(outer, "join-outer");
      await store.transaction(outer, async (inner) => {
        expect(inner).toBe(outer);
        await put(inner, "join-inner");
      });
    });
    expect(await keys("join-")).toEqual(["join-inner", "join-outer"]);

    await expect(
      store.transaction(store.db, async (outer) => {
        await store.transaction(outer, (inner) => put(inner, "joined-undone-inner"));
        await put(outer, "joined-undone-outer");
        throw new Error("outer fails after the nested call succeeded");
      }),
    ).rejects.toThrow("outer fails");
    expect(await keys("joined-undone-")).toEqual([]);
  });

  it("in a savepoint, a nested call that fails is undone alone and the enclosing transaction goes on", async () => {
    await store.transaction(store.db, async (outer) => {
      await put(outer, "savepoint-before");
      await expect(
        store.transaction(
          outer,
          async (inner) => {
            await put(inner, "savepoint-undone");
            // A failed statement: on PostgreSQL it would abort the whole transaction without the savepoint.
            await put(inner, "savepoint-before");
          },
          { savepoint: true },
        ),
      ).rejects.toSatisfy((error) => store.isUniqueViolation(error));
      await store.transaction(outer, (inner) => put(inner, "savepoint-nested-ok"), { savepoint: true });
      await put(outer, "savepoint-after");
    });
    expect(await keys("savepoint-")).toEqual(["savepoint-after", "savepoint-before", "savepoint-nested-ok"]);
  });

  it("does not commit a transaction whose savepoint could not be rolled back, even when its error was caught", async () => {
    await expect(
      store.transaction(store.db, async (outer) => {
        await put(outer, "broken-outer");
        await store
          .transaction(
            outer,
            async (inner) => {
              await put(inner, "broken-inner");
              // The savepoint is gone, so rolling back to it fails: what the transaction holds is unknown.
              await sql`release savepoint nested`.execute(inner);
              throw new Error("fails after losing its savepoint");
            },
            { savepoint: true },
          )
          .catch(() => {});
      }),
    ).rejects.toThrow("A savepoint could not be rolled back");
    expect(await keys("broken-")).toEqual([]);
  });

  it("runs a transaction that lost a deadlock (40P01) or a serialization conflict (40001) again", async () => {
    for (const code of ["40P01", "40001"]) {
      let attempts = 0;
      const result = await store.transaction(store.db, async (trx) => {
        attempts += 1;
        await put(trx, `retry-${code}-${attempts}`);
        if (attempts === 1) throw conflictError(code);
        return "done";
      });
      expect(result).toBe("done");
      expect(attempts).toBe(2);
      // The failed attempt's write was rolled back with it.
      expect(await keys(`retry-${code}-`)).toEqual([`retry-${code}-2`]);
    }
  });

  it("gives up after three attempts, does not retry other errors, and leaves a joined one to its outer", async () => {
    let attempts = 0;
    await expect(
      store.transaction(store.db, async () => {
        attempts += 1;
        throw conflictError("40P01");
      }),
    ).rejects.toMatchObject({ code: "40P01" });
    expect(attempts).toBe(3);

    attempts = 0;
    await expect(
      store.transaction(store.db, async () => {
        attempts += 1;
        throw conflictError("23505");
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(attempts).toBe(1);

    let outerAttempts = 0;
    let innerAttempts = 0;
    await store.transaction(store.db, async (outer) => {
      outerAttempts += 1;
      await store.transaction(outer, async () => {
        innerAttempts += 1;
        if (innerAttempts === 1) throw conflictError("40P01");
      });
    });
    expect({ outerAttempts, innerAttempts }).toEqual({ outerAttempts: 2, innerAttempts: 2 });
  });
});

describe("store.transaction [sqlite]", () => {
  it("takes the database's write lock when it begins, before its first write", async () => {
    const { store, dispose } = await openScratchStore();
    try {
      await store.migrate();
      const { rows } = await sql<{ file: string }>`select file from pragma_database_list where name = 'main'`.execute(
        store.db,
      );
      const other = new SQLite(rows[0]?.file ?? "", { timeout: 0 });
      try {
        await store.transaction(store.db, async (trx) => {
          await trx.selectFrom("settings").select("key").execute();
          // Another connection cannot begin writing while this transaction, which has only read, is open.
          expect(() => other.exec("begin immediate")).toThrow(/locked|busy/i);
        });
        other.exec("begin immediate");
        other.exec("rollback");
      } finally {
        other.close();
      }
    } finally {
      await dispose();
    }
  });
});
