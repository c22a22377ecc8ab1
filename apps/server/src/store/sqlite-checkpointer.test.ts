/**
 * The checkpoint thread copies committed pages from the WAL into the database file while the writer's own
 * automatic checkpoint (at WRITER_CHECKPOINT_PAGES) is far from due.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { openSqliteStore } from "./sqlite.ts";

const dir = mkdtempSync(join(tmpdir(), "pharos-checkpoint-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("checkpoints the WAL into the database file from its own thread", async () => {
  const path = join(dir, "pharos.db");
  const store = openSqliteStore(path);
  try {
    await store.migrate();
    const before = statSync(path).size;
    // About 2 MB: some 500 pages, well below the writer's threshold of 10,000.
    const value = "x".repeat(4_000);
    await store.db.transaction().execute(async (trx) => {
      for (let i = 0; i < 500; i++)
        await trx
          .insertInto("settings")
          .values({ key: `k-${i}`, value })
          .execute();
    });
    const deadline = Date.now() + 10_000;
    while (statSync(path).size < before + 2_000_000 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(statSync(path).size).toBeGreaterThanOrEqual(before + 2_000_000);
  } finally {
    await store.close();
  }
});
