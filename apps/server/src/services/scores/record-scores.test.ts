/**
 * recordScores, the storage that the score API and online evaluation share: what it stores, how a value
 * round-trips on both databases, that score configs bind it, and that it joins its caller's transaction.
 * (No operation reads scores yet: the rows are read back from the store.)
 */
import { expect, it } from "vitest";
import { ApiError } from "../../errors.ts";
import { createIdGenerator } from "../../ids.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import { createTrace, modelSpan, traceBody } from "../../testing/log-write-fixtures.ts";
import { recordScores, type ScoreToRecord, type ScoreWriteContext } from "./record-scores.ts";
import { toScore } from "./score.ts";

/** What a worker has: the store's handle, its clock and ids. */
const workerContext = (h: Harness): ScoreWriteContext => ({
  db: h.store.db,
  store: h.store,
  now: h.now,
  newId: createIdGenerator(h.now),
});

async function traceWithSpan(h: Harness) {
  const { traceId, spanIds } = await createTrace(h, traceBody(h, {}, [modelSpan()]));
  const base = {
    workspaceId: h.workspaceId,
    projectId: h.projectId,
    traceId,
    spanId: spanIds[0] ?? null,
    comment: null,
    source: "evaluator",
    evaluatorId: "evaluator_x",
    runId: null,
    authorKeyId: null,
  } satisfies Partial<ScoreToRecord>;
  return { traceId, spanId: spanIds[0] as string, base };
}

const storedScores = async (h: Harness, traceId: string) =>
  (await h.store.db.selectFrom("scores").selectAll().where("traceId", "=", traceId).orderBy("id").execute()).map(
    toScore,
  );

async function addConfig(h: Harness, config: { name: string; dataType: string; [column: string]: unknown }) {
  await h.store.db
    .insertInto("scoreConfigs")
    .values({
      id: `scoreconfig_${config.name}`,
      workspaceId: h.workspaceId,
      projectId: h.projectId,
      minValue: null,
      maxValue: null,
      categories: null,
      description: "",
      createdAt: h.now(),
      updatedAt: h.now(),
      ...(config as { name: string; dataType: "numeric" }),
    })
    .execute();
}

describeEachStore("recordScores", (use) => {
  it("stores numbers, categories and booleans on a span or a trace and reads them back as sent", async () => {
    const h = use();
    const { traceId, spanId, base } = await traceWithSpan(h);
    const recorded = await recordScores(workerContext(h), [
      { ...base, name: "accuracy", value: 0.75, comment: "close" },
      { ...base, name: "tone", value: "polite" },
      { ...base, spanId: null, name: "helpful", value: false, source: "api", evaluatorId: null, authorKeyId: "k" },
    ]);
    expect(recorded.map((score) => [score.name, score.value, score.dataType, score.spanId])).toEqual([
      ["accuracy", 0.75, "numeric", spanId],
      ["tone", "polite", "categorical", spanId],
      ["helpful", false, "boolean", null],
    ]);
    expect(await storedScores(h, traceId)).toEqual(recorded);
    const rows = await h.store.db
      .selectFrom("scores")
      .select(["name", "numberValue"])
      .where("traceId", "=", traceId)
      .execute();
    // A boolean is stored as 0 / 1 so that it averages like a number.
    expect(Object.fromEntries(rows.map((row) => [row.name, row.numberValue]))).toEqual({
      accuracy: 0.75,
      tone: null,
      helpful: 0,
    });
  });

  it("refuses a value its score config does not allow, naming the rule, and stores none of the batch", async () => {
    const h = use();
    const { traceId, base } = await traceWithSpan(h);
    await addConfig(h, { name: "quality", dataType: "numeric", minValue: 0, maxValue: 1 });
    await addConfig(h, { name: "verdict", dataType: "categorical", categories: JSON.stringify(["good", "bad"]) });
    await addConfig(h, { name: "thumbs", dataType: "boolean" });
    const cases: [Partial<ScoreToRecord>, string][] = [
      [{ name: "quality", value: 1.5 }, 'must be between 0 and 1 (score config "quality")'],
      [{ name: "quality", value: "high" }, 'must be a number (score config "quality")'],
      [{ name: "verdict", value: "meh" }, 'must be one of "good", "bad" (score config "verdict")'],
      [{ name: "thumbs", value: 1 }, 'must be a boolean (score config "thumbs")'],
      [{ name: "", value: 1 }, "must have 1 to 200 characters"],
      [{ name: "x", value: Number.NaN }, "must be a finite number"],
    ];
    for (const [score, issue] of cases) {
      const attempt = recordScores(workerContext(h), [
        { ...base, name: "quality", value: 0.5 },
        { ...base, ...score } as ScoreToRecord,
      ]);
      await expect(attempt).rejects.toBeInstanceOf(ApiError);
      const error = (await attempt.catch((caught) => caught)) as ApiError;
      expect(error.code).toBe("VALIDATION_ERROR");
      expect(error.details?.[0]?.issue).toBe(issue);
      expect(error.details?.[0]?.field).toMatch(/^scores\[1\]\./);
    }
    expect(await storedScores(h, traceId)).toEqual([]);
    const fitting = await recordScores(workerContext(h), [
      { ...base, name: "quality", value: 1 },
      { ...base, name: "verdict", value: "good" },
      { ...base, name: "thumbs", value: true },
    ]);
    expect(fitting).toHaveLength(3);
  });

  it("joins the caller's transaction: rolled back with it", async () => {
    const h = use();
    const { traceId, base } = await traceWithSpan(h);
    const ctx = workerContext(h);
    await expect(
      h.store.transaction(ctx.db, async (db) => {
        await recordScores({ ...ctx, db }, [{ ...base, name: "accuracy", value: 1 }]);
        expect(await db.selectFrom("scores").select("id").where("traceId", "=", traceId).execute()).toHaveLength(1);
        throw new Error("the caller fails after recording");
      }),
    ).rejects.toThrow("the caller fails");
    expect(await storedScores(h, traceId)).toEqual([]);
  });
});
