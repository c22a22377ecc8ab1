/**
 * Continuous evaluation across real processes: a server killed (SIGKILL) while its worker grades queued live
 * spans is restarted on the same database, and in the end every queued span is graded exactly once (one
 * result counted, one score). The judge is the fake provider, a real HTTP server on loopback, slow enough that
 * the kill lands mid-way.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueKey } from "../auth/api-keys.ts";
import { createIdGenerator } from "../ids.ts";
import { openStore } from "../store/open-store.ts";
import { type FakeProvider, startFakeProvider } from "../testing/fake-provider.ts";
import { postgresUrl } from "../testing/harness.ts";
import {
  freshPostgresSchema,
  processApi,
  type ServerProcess,
  startServer,
  tempDatabaseDir,
} from "../testing/processes.ts";

const files = tempDatabaseDir();
const running = new Set<ServerProcess>();
let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(async () => {
  await Promise.all([...running].map((process) => process.stop("SIGKILL").catch(() => {})));
  await fake.close();
  files.dispose();
});

function track(process: ServerProcess): ServerProcess {
  running.add(process);
  process.exited.then(() => running.delete(process));
  return process;
}

const SPANS = 40;
const T0 = 1_732_190_400_000;

/** A judge on the fake, a prompt with an llm-as-a-judge evaluator, and SPANS live spans asking for it. */
async function logLiveSpans(call: ReturnType<typeof processApi>) {
  const { projects } = await call("GET", "/projects");
  const projectId = projects[0].id as string;
  const provider = await call("POST", "/providers", {
    provider: "openai-compatible",
    displayName: "Fake judge",
    baseUrl: `${fake.url}/v1`,
  });
  const prompt = await call("POST", "/prompts", { projectId, title: "Support" });
  const dataset = await call("POST", "/datasets", { projectId, title: "Unused" });
  const evaluator = await call("POST", `/prompts/${prompt.id}/evaluators`, {
    projectId,
    datasetId: dataset.id,
    title: "Polite",
    config: {
      type: "llm-as-a-judge",
      value: "Pass if the answer to {{question}} is polite.",
      judgeModel: { providerId: provider.id, provider: "openai-compatible", model: "fake-model" },
    },
  });
  const spanIds: string[] = [];
  for (let index = 0; index < SPANS; index += 10) {
    const written = await call("POST", "/logs/trace", {
      projectId,
      trace: { name: "chat", status: "success", startedAt: T0, endedAt: T0 + 2000 },
      spans: Array.from({ length: 10 }, (_, offset) => ({
        name: "llm-call",
        status: "success",
        startedAt: T0 + 100,
        endedAt: T0 + 1300,
        promptId: prompt.id,
        runEvaluation: true,
        content: {
          type: "Model",
          provider: "openai-compatible",
          model: "fake-model",
          input: "{}",
          output: JSON.stringify({
            messages: [{ role: "assistant", content: [{ modality: "text", value: `Answer ${index + offset}` }] }],
          }),
          variables: { question: { modality: "text", value: `Question ${index + offset}` } },
        },
      })),
    });
    spanIds.push(...written.spanIds);
  }
  return { statsPath: `/prompts/${prompt.id}/evaluators/${evaluator.id}/online-stats`, spanIds };
}

async function waitForStats(call: ReturnType<typeof processApi>, path: string, until: (stats: any) => boolean) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const stats = await call("GET", path);
    if (until(stats)) return stats;
    if (Date.now() > deadline) throw new Error(`counts not there in time: ${JSON.stringify(stats)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const targets = [
  ["sqlite", async () => ({ url: files.url(`online-kill-${Date.now()}.db`), dispose: async () => {} })] as const,
  ...(postgresUrl ? [["postgres", () => freshPostgresSchema(postgresUrl as string)] as const] : []),
];

describe.each(targets)("continuous evaluation across processes [%s]", (_, open) => {
  it("grades every queued span exactly once after the server is SIGKILLed mid-way", async () => {
    const database = await open();
    try {
      fake.configure({ latencyMs: 60, fail: undefined, verdict: undefined });
      const key = issueKey(createIdGenerator(Date.now)("apiKey")).key;
      const env = {
        DATABASE_URL: database.url,
        PHAROS_BOOTSTRAP_API_KEY: key,
        PHAROS_EVALUATION_CONCURRENCY: "4",
        // A killed worker's spans are taken over once its lease runs out.
        PHAROS_EVALUATION_LEASE_MS: "1500",
        PHAROS_ONLINE_JUDGE_CALLS_PER_MINUTE: "100000",
      };
      const first = track(startServer(env));
      const firstCall = processApi(await first.ready(), key);
      const { statsPath, spanIds } = await logLiveSpans(firstCall);
      await waitForStats(firstCall, statsPath, (stats) => stats.graded >= 8);
      await first.stop("SIGKILL");
      const killedWith = await (async () => {
        const store = openStore(database.url);
        try {
          return await store.db.selectFrom("onlineEvaluations").select("state").where("state", "<>", "done").execute();
        } finally {
          await store.close();
        }
      })();
      // The kill came mid-way: spans were left to grade.
      expect(killedWith.length).toBeGreaterThan(0);

      const second = track(startServer(env));
      const call = processApi(await second.ready(), key);
      const stats = await waitForStats(call, statsPath, (candidate) => candidate.pending === 0);
      expect(stats).toMatchObject({ queued: SPANS, graded: SPANS, passed: SPANS, failed: 0, passRate: 1 });
      await second.stop();

      const store = openStore(database.url);
      try {
        const scores = await store.db
          .selectFrom("scores")
          .select(["spanId", "source", "stringValue"])
          .where("spanId", "in", spanIds)
          .execute();
        expect(scores).toHaveLength(SPANS);
        expect(new Set(scores.map((score) => score.spanId)).size).toBe(SPANS);
        expect(scores.every((score) => score.source === "evaluator" && score.stringValue === "pass")).toBe(true);
      } finally {
        await store.close();
      }
    } finally {
      await database.dispose();
    }
  }, 120_000);
});
