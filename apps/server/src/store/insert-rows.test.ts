import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { adapters } from "../testing/harness.ts";
import type { Database } from "./schema.ts";
import type { ScratchStore } from "./scratch.ts";

/** Text that a driver's quoting or an array literal could mangle, and numbers at the edges of their columns. */
const awkwardTexts = ['say "hi"', "back\\slash", "{braces, commas}", "NULL", "", "  padded  ", "naïve – 日本語 🚦"];

const attributeRows: Database["logAttributes"][] = awkwardTexts.map((textValue, index) => ({
  projectId: "project_p",
  ownerKind: "span",
  ownerId: `span_${index}`,
  key: "note",
  textValue,
  numberValue: null,
  booleanValue: null,
  startedAt: 1_700_000_000_000 + index,
}));
const numberRows: Database["logAttributes"][] = [0.1 + 0.2, -1e-300, 2 ** 53 - 1, 1.7976931348623157e308].map(
  (numberValue, index) => ({
    projectId: "project_p",
    ownerKind: "trace",
    ownerId: `trace_${index}`,
    key: "score",
    textValue: null,
    numberValue,
    booleanValue: index % 2,
    startedAt: 2 ** 53 - 1 - index,
  }),
);

describe.each(adapters.map((adapter) => [adapter.name, adapter] as const))("insertRows [%s]", (_, adapter) => {
  let store: ScratchStore["store"];
  let dispose: ScratchStore["dispose"];
  beforeEach(async () => {
    ({ store, dispose } = await adapter.open());
    await store.migrate();
  });
  afterEach(() => dispose());

  it("stores every value as given: awkward text, nulls, extreme numbers, in one call or row by row", async () => {
    await store.insertRows(store.db, "logAttributes", attributeRows);
    for (const row of numberRows) await store.insertRows(store.db, "logAttributes", [row]);
    await store.insertRows(store.db, "logAttributes", []);

    const stored = await store.db.selectFrom("logAttributes").selectAll().orderBy("ownerId").execute();
    const expected = [...attributeRows, ...numberRows].sort((a, b) => (a.ownerId < b.ownerId ? -1 : 1));
    expect(stored).toEqual(expected);
  });

  it("is all or nothing inside the caller's transaction", async () => {
    const duplicate = [attributeRows[0], attributeRows[1], attributeRows[0]] as Database["logAttributes"][];
    const failed = await store.db
      .transaction()
      .execute(async (trx) => {
        await store.insertRows(trx, "logTags", [
          { projectId: "project_p", ownerKind: "span", ownerId: "span_1", tag: "kept?", startedAt: 1 },
        ]);
        await store.insertRows(trx, "logAttributes", duplicate);
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(store.isUniqueViolation(failed)).toBe(true);
    expect(await store.db.selectFrom("logAttributes").selectAll().execute()).toEqual([]);
    expect(await store.db.selectFrom("logTags").selectAll().execute()).toEqual([]);
  });

  it("writes a column added to the table after its first insert", async () => {
    const tag = { projectId: "project_p", ownerKind: "span" as const, ownerId: "span_1", tag: "first", startedAt: 1 };
    await store.insertRows(store.db, "logTags", [tag]);
    await sql`alter table "logTags" add column "note" text`.execute(store.db);
    const later = { ...tag, ownerId: "span_2", tag: "later", note: "added" };
    await store.insertRows(store.db, "logTags", [later as typeof tag]);

    const stored = await sql<Record<string, unknown>>`select * from "logTags" order by "ownerId"`.execute(store.db);
    expect(stored.rows).toEqual([{ ...tag, note: null }, later]);
  });
});
