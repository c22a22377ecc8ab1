/**
 * Continuous evaluation end to end, in process, on each database: spans written through the API with
 * `runEvaluation` are queued with their evaluators, a worker on the same database grades them (the judge on
 * the fake provider, a real HTTP server on loopback), and the grades are read back through the evaluator's
 * online counts and as scores on the spans.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { inSample } from "../services/online-evaluation/enqueue.ts";
import { NOT_ACTIVE_REASON } from "../services/online-evaluation/queue-hygiene.ts";
import { type FakeProvider, startFakeProvider } from "../testing/fake-provider.ts";
import { describeEachStore, type Harness } from "../testing/harness.ts";
import { modelSpan, T0, traceBody } from "../testing/log-write-fixtures.ts";
import { RetentionSweeper } from "./retention-sweeper.ts";

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(async () => {
  await fake.close();
});

/** The window every counter below reads: the harness's clock is at T0 and later. */
const WINDOW = `from=${T0 - 60_000}&to=${T0 + 365 * 24 * 3_600_000}`;

async function ok(h: Harness, method: string, path: string, body?: unknown) {
  const reply = await h.request(method, path, { body });
  expect(reply.status, `${method} ${path}: ${JSON.stringify(reply.body)}`).toBeLessThan(300);
  return reply.body;
}

async function newPromptWithEvaluator(h: Harness, evaluator: Record<string, unknown>) {
  const prompt = await ok(h, "POST", "/prompts", { projectId: h.projectId, title: "Support" });
  const dataset = await ok(h, "POST", "/datasets", { projectId: h.projectId, title: "Questions" });
  const created = await ok(h, "POST", `/prompts/${prompt.id}/evaluators`, {
    projectId: h.projectId,
    datasetId: dataset.id,
    title: "Ships",
    ...evaluator,
  });
  return { promptId: prompt.id as string, evaluatorId: created.id as string };
}

const SHIPS = { type: "text-matcher", operator: "contains-any", value: ["ships"] };
const QUESTION = { question: { modality: "text", value: "Where is my order 8812?" } };

/** A Model span of `promptId` asking for evaluation, with the recorded `question` variable. */
const liveSpan = (promptId: string, overrides: Record<string, unknown> = {}, variables: unknown = QUESTION) =>
  modelSpan({ promptId, runEvaluation: true, ...overrides }, { variables });

async function stats(h: Harness, s: { promptId: string; evaluatorId: string }) {
  return ok(h, "GET", `/prompts/${s.promptId}/evaluators/${s.evaluatorId}/online-stats?${WINDOW}`);
}

async function waitForStats(
  h: Harness,
  s: { promptId: string; evaluatorId: string },
  until: (stats: any) => boolean,
  timeoutMs = 10_000,
) {
  let last: any;
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    last = await stats(h, s);
    if (until(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the counts did not get there: ${JSON.stringify(last)}`);
}

const scoresOf = (h: Harness, spanId: string) =>
  h.store.db.selectFrom("scores").selectAll().where("spanId", "=", spanId).execute();

describeEachStore("continuous evaluation", (use) => {
  beforeAll(async () => {
    await use().startWorker({ concurrency: 4, providerMaxRetries: 0 });
  });
  const reset = () => {
    fake.configure({ latencyMs: 0, fail: undefined, reply: undefined, verdict: undefined });
    fake.reset();
  };

  it("grades a span logged with runEvaluation within seconds: counts and a score on the span", async () => {
    const h = use();
    const s = await newPromptWithEvaluator(h, { config: SHIPS });
    const written = await ok(h, "POST", "/logs/trace", traceBody(h, {}, [liveSpan(s.promptId)]));
    const started = Date.now();
    const counted = await waitForStats(h, s, (counts) => counts.graded === 1);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(counted).toMatchObject({ queued: 1, graded: 1, passed: 1, failed: 0, pending: 0, passRate: 1 });
    const scores = await scoresOf(h, written.spanIds[0]);
    expect(scores).toHaveLength(1);
    expect(scores[0]).toMatchObject({
      traceId: written.traceId,
      name: "Ships",
      dataType: "categorical",
      stringValue: "pass",
      source: "evaluator",
      evaluatorId: s.evaluatorId,
      runId: null,
    });
    expect(scores[0]?.comment).toMatch(/^Score 1\./);
  });

  it("queues spans added with POST /logs/span too, and only spans asking for evaluation with the prompt", async () => {
    const h = use();
    const s = await newPromptWithEvaluator(h, { config: SHIPS });
    const trace = await ok(h, "POST", "/logs/trace", traceBody(h, {}, [modelSpan({ promptId: s.promptId })]));
    await ok(h, "POST", "/logs/span", {
      projectId: h.projectId,
      span: { traceId: trace.traceId, ...liveSpan(s.promptId) },
    });
    await ok(h, "POST", "/logs/span", {
      projectId: h.projectId,
      span: { traceId: trace.traceId, ...modelSpan({ runEvaluation: true }) },
    });
    const counted = await waitForStats(h, s, (counts) => counts.pending === 0);
    expect(counted).toMatchObject({ queued: 1, graded: 1, passed: 1 });
  });

  it("samples deterministically from span and evaluator ids: about half of 1,000 spans at 0.5", async () => {
    const h = use();
    const s = await newPromptWithEvaluator(h, { config: SHIPS, online: { sampleRate: 0.5 } });
    const spanIds: string[] = [];
    for (let request = 0; request < 10; request++) {
      const spans = Array.from({ length: 100 }, () => liveSpan(s.promptId));
      spanIds.push(...(await ok(h, "POST", "/logs/trace", traceBody(h, {}, spans))).spanIds);
    }
    const expected = spanIds.filter((spanId) => inSample(spanId, s.evaluatorId, 0.5)).length;
    // Binomial(1000, 0.5): standard deviation ≈ 15.8; ±5 of them fails once in millions of runs.
    expect(expected).toBeGreaterThan(420);
    expect(expected).toBeLessThan(580);
    const counted = await stats(h, s);
    expect(counted.queued).toBe(expected);
    // Graded before the next test, whose span would otherwise wait behind these.
    await waitForStats(h, s, (counts) => counts.pending === 0, 60_000);
  }, 90_000);

  it("samples the same fixed ids the same way every time", () => {
    const ids = Array.from({ length: 1000 }, (_, index) => `span_seed_${index}`);
    const sampled = ids.filter((id) => inSample(id, "evaluator_seed", 0.5));
    expect(sampled.length).toBeGreaterThan(420);
    expect(sampled.length).toBeLessThan(580);
    expect(ids.filter((id) => inSample(id, "evaluator_seed", 0.5))).toEqual(sampled);
    expect(ids.filter((id) => inSample(id, "evaluator_seed", 0)).length).toBe(0);
    expect(ids.filter((id) => inSample(id, "evaluator_seed", 1)).length).toBe(1000);
  });

  it("grades only the spans that match the evaluator's filters", async () => {
    const h = use();
    const s = await newPromptWithEvaluator(h, {
      config: SHIPS,
      online: {
        filters: [
          { column: "tags", operator: "contains", value: "production" },
          { column: "attributes", key: "user.plan", operator: "in", value: ["pro", "team"] },
        ],
      },
    });
    const spans = [
      liveSpan(s.promptId, { tags: ["production"], attributes: { "user.plan": "pro" } }),
      liveSpan(s.promptId, { tags: ["staging"], attributes: { "user.plan": "pro" } }),
      liveSpan(s.promptId, { tags: ["production"], attributes: { "user.plan": "free" } }),
      liveSpan(s.promptId, { tags: ["production"] }),
    ];
    const written = await ok(h, "POST", "/logs/trace", traceBody(h, {}, spans));
    const counted = await waitForStats(h, s, (counts) => counts.pending === 0);
    expect(counted).toMatchObject({ queued: 1, graded: 1 });
    expect(await scoresOf(h, written.spanIds[0])).toHaveLength(1);
    for (const spanId of written.spanIds.slice(1)) expect(await scoresOf(h, spanId)).toHaveLength(0);
  });

  it("filters on the user of a span's trace, on both write paths", async () => {
    const h = use();
    const s = await newPromptWithEvaluator(h, {
      config: SHIPS,
      online: { filters: [{ column: "userId", operator: "equals", value: "user-pro" }] },
    });
    const pro = await ok(h, "POST", "/logs/trace", traceBody(h, { userId: "user-pro" }, [liveSpan(s.promptId)]));
    const other = await ok(h, "POST", "/logs/trace", traceBody(h, { userId: "user-free" }, [liveSpan(s.promptId)]));
    const added = await ok(h, "POST", "/logs/span", {
      projectId: h.projectId,
      span: { traceId: pro.traceId, ...liveSpan(s.promptId) },
    });
    await ok(h, "POST", "/logs/span", {
      projectId: h.projectId,
      span: { traceId: other.traceId, ...liveSpan(s.promptId) },
    });
    const counted = await waitForStats(h, s, (counts) => counts.pending === 0);
    expect(counted).toMatchObject({ queued: 2, graded: 2 });
    expect(await scoresOf(h, pro.spanIds[0])).toHaveLength(1);
    expect(await scoresOf(h, added.spanId)).toHaveLength(1);
    expect(await scoresOf(h, other.spanIds[0])).toHaveLength(0);
  });

  it("a grade its score config refuses stays on its queue row with the refusal; the batch's other grades are scores", async () => {
    const h = use();
    const s = await newPromptWithEvaluator(h, { config: SHIPS });
    const dataset = await ok(h, "POST", "/datasets", { projectId: h.projectId, title: "Verdicts" });
    const refused = await ok(h, "POST", `/prompts/${s.promptId}/evaluators`, {
      projectId: h.projectId,
      datasetId: dataset.id,
      title: "Verdict only",
      config: SHIPS,
    });
    await ok(h, "POST", `/projects/${h.projectId}/score-configs`, {
      name: "Verdict only",
      rule: { type: "categorical", categories: ["correct", "wrong"] },
    });
    await ok(h, "POST", "/logs/trace", traceBody(h, {}, [liveSpan(s.promptId), liveSpan(s.promptId)]));
    const refusedStats = { promptId: s.promptId, evaluatorId: refused.id as string };
    expect(await waitForStats(h, refusedStats, (counts) => counts.pending === 0)).toMatchObject({ failed: 2 });
    expect(await waitForStats(h, s, (counts) => counts.pending === 0)).toMatchObject({ graded: 2 });
    const queued = await h.store.db
      .selectFrom("onlineEvaluations")
      .selectAll()
      .where("evaluatorId", "=", refused.id)
      .execute();
    for (const row of queued) {
      expect(["pass", "fail"]).toContain(row.grade);
      expect(row.error).toMatch(/^The grade could not be stored as a score: ./);
      const names = (await scoresOf(h, row.spanId)).map((score) => score.name);
      expect(names).toEqual(["Ships"]);
    }
  });

  it("records why a span could not be graded: a variable it did not record, a judge provider failing", async () => {
    const h = use();
    reset();
    const provider = await ok(h, "POST", "/providers", {
      provider: "openai",
      displayName: `Judge ${Math.random()}`,
      baseUrl: `${fake.url}/v1`,
      credentials: { apiKey: "sk-fake" },
    });
    const matcher = await newPromptWithEvaluator(h, {
      config: { type: "text-matcher", operator: "contains-any", value: ["{{orderNumber}}"] },
    });
    const noVariable = await ok(h, "POST", "/logs/trace", traceBody(h, {}, [liveSpan(matcher.promptId)]));
    const missing = await waitForStats(h, matcher, (counts) => counts.pending === 0);
    expect(missing).toMatchObject({ queued: 1, graded: 0, failed: 1, passRate: null });
    const [missingScore] = await scoresOf(h, noVariable.spanIds[0]);
    expect(missingScore).toMatchObject({ stringValue: "unknown", source: "evaluator" });
    expect(missingScore?.comment).toMatch(/^Not graded: .*\{\{orderNumber\}\}/);

    fake.configure({ fail: () => ({ status: 500 }) });
    const judged = await newPromptWithEvaluator(h, {
      config: {
        type: "llm-as-a-judge",
        value: "Pass if the answer to {{question}} is polite.",
        judgeModel: { providerId: provider.id, model: "gpt-4o-mini" },
      },
    });
    const down = await ok(h, "POST", "/logs/trace", traceBody(h, {}, [liveSpan(judged.promptId)]));
    const failing = await waitForStats(h, judged, (counts) => counts.pending === 0);
    expect(failing).toMatchObject({ queued: 1, graded: 0, failed: 1 });
    const [downScore] = await scoresOf(h, down.spanIds[0]);
    expect(downScore?.comment).toMatch(/^Not graded: .*(500|fake failure)/);
    expect(fake.requests.length).toBeGreaterThan(0);

    // The provider back: the judge grades (the fake passes a non-blank output).
    reset();
    const up = await ok(h, "POST", "/logs/trace", traceBody(h, {}, [liveSpan(judged.promptId)]));
    const graded = await waitForStats(h, judged, (counts) => counts.pending === 0 && counts.queued === 2);
    expect(graded).toMatchObject({ graded: 1, passed: 1, failed: 1, passRate: 1 });
    expect((await scoresOf(h, up.spanIds[0]))[0]).toMatchObject({ stringValue: "pass" });
  });

  it("400 for a sample rate outside 0–1 and for filters the grammar rejects; nothing is stored", async () => {
    const h = use();
    const { promptId } = await newPromptWithEvaluator(h, { config: SHIPS });
    const dataset = await ok(h, "POST", "/datasets", { projectId: h.projectId, title: "More" });
    const before = await ok(h, "GET", `/prompts/${promptId}/evaluators`);
    const bad = [
      { sampleRate: 1.5 },
      { sampleRate: -0.1 },
      { filters: [{ column: "name", operator: "gt", value: 3 }] },
      { filters: [{ column: "nope", operator: "equals", value: "x" }] },
      { filters: [{ column: "attributes", operator: "equals", value: "x" }] },
      { filters: Array.from({ length: 21 }, () => ({ column: "name", operator: "exists", value: true })) },
    ];
    for (const online of bad) {
      const reply = await h.request("POST", `/prompts/${promptId}/evaluators`, {
        body: { projectId: h.projectId, datasetId: dataset.id, title: "Bad", config: SHIPS, online },
      });
      expect(reply.status, JSON.stringify(online)).toBe(400);
      expect(reply.body.error.code).toBe("VALIDATION_ERROR");
      const update = await h.request("PATCH", `/prompts/${promptId}/evaluators/${before.evaluators[0].id}`, {
        body: { online },
      });
      expect(update.status, JSON.stringify(online)).toBe(400);
      expect(update.body.error.code).toBe("VALIDATION_ERROR");
    }
    expect(await ok(h, "GET", `/prompts/${promptId}/evaluators`)).toEqual(before);
    const unchanged = await ok(h, "GET", `/prompts/${promptId}/evaluators/${before.evaluators[0].id}`);
    expect(unchanged.online).toEqual({ sampleRate: 1, filters: [] });
  });

  it("shows and changes online settings; an archived evaluator queues nothing", async () => {
    const h = use();
    const s = await newPromptWithEvaluator(h, { config: SHIPS, online: { sampleRate: 0.25 } });
    const read = await ok(h, "GET", `/prompts/${s.promptId}/evaluators/${s.evaluatorId}`);
    expect(read.online).toEqual({ sampleRate: 0.25, filters: [] });
    const filters = [{ column: "name", operator: "equals", value: "llm-call" }];
    const updated = await ok(h, "PATCH", `/prompts/${s.promptId}/evaluators/${s.evaluatorId}`, {
      online: { filters },
    });
    expect(updated.online).toEqual({ sampleRate: 1, filters });
    await ok(h, "PATCH", `/prompts/${s.promptId}/evaluators/${s.evaluatorId}`, { status: "archived" });
    await ok(h, "POST", "/logs/trace", traceBody(h, {}, [liveSpan(s.promptId)]));
    expect(await stats(h, s)).toMatchObject({ queued: 0 });
  });
});

describeEachStore("continuous evaluation: the per-evaluator cap on judge calls", (use) => {
  beforeAll(async () => {
    await use().startWorker({ concurrency: 4, providerMaxRetries: 0, onlineJudgeCallsPerMinute: 2 });
  });

  it("makes at most the cap's judge calls a minute for one evaluator; a deterministic evaluator is not held", async () => {
    const h = use();
    fake.configure({ latencyMs: 0, fail: undefined, reply: undefined, verdict: undefined });
    fake.reset();
    const provider = await ok(h, "POST", "/providers", {
      provider: "openai",
      displayName: "Capped judge",
      baseUrl: `${fake.url}/v1`,
      credentials: { apiKey: "sk-fake" },
    });
    const judged = await newPromptWithEvaluator(h, {
      config: {
        type: "llm-as-a-judge",
        value: "Pass if the answer to {{question}} is polite.",
        judgeModel: { providerId: provider.id, model: "gpt-4o-mini" },
      },
    });
    const matched = await newPromptWithEvaluator(h, { config: SHIPS });
    await ok(
      h,
      "POST",
      "/logs/trace",
      traceBody(
        h,
        {},
        Array.from({ length: 5 }, () => liveSpan(judged.promptId)),
      ),
    );
    await ok(
      h,
      "POST",
      "/logs/trace",
      traceBody(
        h,
        {},
        Array.from({ length: 5 }, () => liveSpan(matched.promptId)),
      ),
    );
    expect(await waitForStats(h, judged, (counts) => counts.graded === 2)).toMatchObject({ pending: 3 });
    // The text matcher's spans are not held behind the capped evaluator's.
    expect(await waitForStats(h, matched, (counts) => counts.pending === 0)).toMatchObject({ graded: 5 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await stats(h, judged)).toMatchObject({ graded: 2, pending: 3 });
    expect(fake.requests.filter((request) => request.method === "POST")).toHaveLength(2);
  });
});

describeEachStore("continuous evaluation: ingestion first", (use) => {
  const DEFERRAL_MS = 1_500;
  beforeAll(async () => {
    // Log writes that never stop: only the deferral bound lets live spans through.
    await use().startWorker({ concurrency: 4, ingestionBusy: () => true, maxIngestionDeferralMs: DEFERRAL_MS });
  });

  it("defers live spans to log writes by at most the bound, and grades them all while writes never stop", async () => {
    const h = use();
    const s = await newPromptWithEvaluator(h, { config: SHIPS });
    // One commit, so that the first claim comes after it and the counts below are seen well within a bound.
    await ok(
      h,
      "POST",
      "/logs/trace",
      traceBody(
        h,
        {},
        Array.from({ length: 120 }, () => liveSpan(s.promptId)),
      ),
    );
    // One claim per bound, of at most 50 spans (the spans a worker grades at once): the counts grow in steps
    // a bound apart, and all 120 are graded although writes never stop.
    const steps: { at: number; graded: number }[] = [];
    const deadline = Date.now() + 4 * DEFERRAL_MS + 10_000;
    for (let graded = 0; graded < 120 && Date.now() < deadline; ) {
      graded = (await stats(h, s)).graded;
      if (graded !== (steps.at(-1)?.graded ?? 0)) steps.push({ at: performance.now(), graded });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(steps.at(-1)?.graded).toBe(120);
    expect(steps.length).toBeGreaterThanOrEqual(3);
    for (const [index, step] of steps.entries()) {
      const previous = steps[index - 1];
      expect(step.graded - (previous?.graded ?? 0)).toBeLessThanOrEqual(50);
      // The first claim's grades may wait for the grading code to load (as long as a bound, on a loaded
      // machine), so the second step can follow the first closely; from the second on, only the bound.
      if (previous && index >= 2) expect(step.at - previous.at).toBeGreaterThan(DEFERRAL_MS / 2);
    }
  });
});

describeEachStore("continuous evaluation: queue hygiene", (use) => {
  const DAY_MS = 24 * 60 * 60 * 1000;
  const queueOf = (h: Harness, evaluatorId: string) =>
    h.store.db.selectFrom("onlineEvaluations").selectAll().where("evaluatorId", "=", evaluatorId).execute();

  it("deletes a deleted evaluator's rows, settles an archived one's, and prunes finished rows after 30 days", async () => {
    const h = use();
    const archived = await newPromptWithEvaluator(h, { config: SHIPS });
    const deleted = await ok(h, "POST", `/prompts/${archived.promptId}/evaluators`, {
      projectId: h.projectId,
      datasetId: (await ok(h, "POST", "/datasets", { projectId: h.projectId, title: "More" })).id,
      title: "Also ships",
      config: SHIPS,
    });
    await ok(h, "POST", "/logs/trace", traceBody(h, {}, [liveSpan(archived.promptId), liveSpan(archived.promptId)]));
    expect(await queueOf(h, deleted.id)).toHaveLength(2);

    // No worker runs here: both evaluators' rows wait. Deleting an evaluator takes its queue with it.
    const reply = await h.request("DELETE", `/prompts/${archived.promptId}/evaluators/${deleted.id}`);
    expect(reply.status).toBe(204);
    expect(await queueOf(h, deleted.id)).toHaveLength(0);
    // A row a write queued for it just before (it read the evaluator from the cache) is swept.
    const [row] = await queueOf(h, archived.evaluatorId);
    await h.store.insertRows(h.store.db, "onlineEvaluations", [{ ...row, evaluatorId: deleted.id } as never]);

    await ok(h, "PATCH", `/prompts/${archived.promptId}/evaluators/${archived.evaluatorId}`, { status: "archived" });
    const sweeper = new RetentionSweeper({ store: h.store, now: h.now });
    expect(await sweeper.tidyOnlineEvaluations()).toEqual({ orphaned: 1, settled: 2, pruned: 0 });
    expect(await queueOf(h, deleted.id)).toHaveLength(0);
    expect(await stats(h, archived)).toMatchObject({ queued: 2, pending: 0, graded: 0, failed: 2 });
    expect((await queueOf(h, archived.evaluatorId)).map((queued) => queued.error)).toEqual([
      NOT_ACTIVE_REASON,
      NOT_ACTIVE_REASON,
    ]);

    // Finished rows are kept 30 days after they were queued, then deleted; the scores on spans stay.
    const at = (days: number) => new RetentionSweeper({ store: h.store, now: () => h.now() + days * DAY_MS });
    expect(await at(29).tidyOnlineEvaluations()).toEqual({ orphaned: 0, settled: 0, pruned: 0 });
    expect(await at(31).tidyOnlineEvaluations()).toEqual({ orphaned: 0, settled: 0, pruned: 2 });
    expect(await queueOf(h, archived.evaluatorId)).toHaveLength(0);
  });
});
