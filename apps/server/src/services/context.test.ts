/**
 * A service transaction the database rolled back for a deadlock or a serialization conflict runs again from
 * the start; other failures, and a conflict that keeps coming back, reach the caller.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../store/store.ts";
import { adapters } from "../testing/harness.ts";
import { inTransaction, type ServiceContext } from "./context.ts";

const conflictError = (code: string) => Object.assign(new Error("deadlock detected"), { code });

describe.each(adapters.map((adapter) => [adapter.name, adapter] as const))("inTransaction [%s]", (_, adapter) => {
  let store: Store;
  let dispose: () => Promise<void>;
  let ctx: ServiceContext;
  beforeAll(async () => {
    ({ store, dispose } = await adapter.open());
    await store.migrate();
    // Only the database handle is used by inTransaction.
    ctx = { db: store.db } as ServiceContext;
  });
  afterAll(() => dispose?.());

  const keys = async (prefix: string) =>
    (
      await store.db.selectFrom("settings").select("key").where("key", "like", `${prefix}%`).orderBy("key").execute()
    ).map((row) => row.key);

  it("runs a transaction that lost a deadlock (40P01) or a serialization conflict (40001) again", async () => {
    for (const code of ["40P01", "40001"]) {
      let attempts = 0;
      const result = await inTransaction(ctx, async (tx) => {
        attempts += 1;
        await tx.db
          .insertInto("settings")
          .values({ key: `retry-${code}-${attempts}`, value: "v" })
          .execute();
        if (attempts === 1) throw conflictError(code);
        return "done";
      });
      expect(result).toBe("done");
      expect(attempts).toBe(2);
      // The failed attempt's write was rolled back with it.
      expect(await keys(`retry-${code}-`)).toEqual([`retry-${code}-2`]);
    }
  });

  it("gives up after three attempts, and does not retry other errors", async () => {
    let attempts = 0;
    await expect(
      inTransaction(ctx, async () => {
        attempts += 1;
        throw conflictError("40P01");
      }),
    ).rejects.toMatchObject({ code: "40P01" });
    expect(attempts).toBe(3);

    attempts = 0;
    await expect(
      inTransaction(ctx, async () => {
        attempts += 1;
        throw conflictError("23505");
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(attempts).toBe(1);
  });
});
