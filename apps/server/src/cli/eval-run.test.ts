/**
 * `pharos eval run`, the CI gate, as a process against a started server (itself a process) whose evaluations
 * call the fake provider: it passes and fails on the pass rate and on regressions from a baseline run, in
 * table and JSON form, and refuses bad arguments. The fake echoes each question; two text-matcher evaluators
 * pass different questions, so the second run has a known regression and improvement against the first.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueKey } from "../auth/api-keys.ts";
import { createIdGenerator } from "../ids.ts";
import { type FakeProvider, startFakeProvider } from "../testing/fake-provider.ts";
import { postgresUrl } from "../testing/harness.ts";
import {
  freshPostgresSchema,
  processApi,
  runCliProcess,
  type ServerProcess,
  startServer,
  tempDatabaseDir,
} from "../testing/processes.ts";

const files = tempDatabaseDir();
let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(async () => {
  await fake.close();
  files.dispose();
});

/** A prompt on the fake, four questions, and evaluators passing questions 0–1 (`first`) and 1–2 (`second`). */
async function promptWithEvaluators(call: ReturnType<typeof processApi>) {
  const { projects } = await call("GET", "/projects");
  const projectId = projects[0].id as string;
  const provider = await call("POST", "/providers", {
    provider: "openai-compatible",
    displayName: "Fake",
    baseUrl: `${fake.url}/v1`,
  });
  const prompt = await call("POST", "/prompts", {
    projectId,
    draft: {
      config: { provider: "openai-compatible", providerId: provider.id, model: "fake-model" },
      messages: [{ role: "user", content: [{ modality: "text", value: "{{question}}" }] }],
    },
  });
  const dataset = await call("POST", "/datasets", {
    projectId,
    title: "Questions",
    columns: [{ name: "question", type: "static" }],
  });
  await call("POST", `/datasets/${dataset.id}/rows`, {
    rows: [0, 1, 2, 3].map((index) => ({ values: { question: `question ${index}` } })),
  });
  const evaluator = async (value: string[]) =>
    (
      await call("POST", `/prompts/${prompt.id}/evaluators`, {
        projectId,
        datasetId: dataset.id,
        title: value.join(" or "),
        config: { type: "text-matcher", operator: "contains-any", value },
      })
    ).id as string;
  return {
    promptId: prompt.id as string,
    first: await evaluator(["question 0", "question 1"]),
    second: await evaluator(["question 1", "question 2"]),
  };
}

const targets = [
  ["sqlite", async () => ({ url: files.url(`gate-${Date.now()}.db`), dispose: async () => {} })] as const,
  ...(postgresUrl ? [["postgres", () => freshPostgresSchema(postgresUrl as string)] as const] : []),
];

describe.each(targets)("pharos eval run [%s]", (_, open) => {
  let database: Awaited<ReturnType<(typeof targets)[number][1]>>;
  let server: ServerProcess;
  let env: Record<string, string>;
  let setup: Awaited<ReturnType<typeof promptWithEvaluators>>;
  beforeAll(async () => {
    database = await open();
    const key = issueKey(createIdGenerator(Date.now)("apiKey")).key;
    server = startServer({ DATABASE_URL: database.url, PHAROS_BOOTSTRAP_API_KEY: key });
    const url = await server.ready();
    env = { PHAROS_URL: url, PHAROS_API_KEY: key };
    setup = await promptWithEvaluators(processApi(url, key));
    fake.configure({ latencyMs: 5 });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await database?.dispose();
  });

  const gate = (args: string[]) =>
    runCliProcess(["eval", "run", "--prompt", setup.promptId, "--poll-interval", "20", ...args], env, 60_000);

  it("passes (exit 0) and fails (exit 1) on --min-pass-rate, with a summary table", async () => {
    const passing = await gate(["--evaluator", setup.first, "--min-pass-rate", "0.5"]);
    expect(passing.code, passing.stderr).toBe(0);
    expect(passing.stdout).toMatch(/pass rate\s+50\.0%/);
    expect(passing.stdout).toMatch(/pass \/ fail \/ unknown\s+2 \/ 2 \/ 0/);
    expect(passing.stdout).toContain("Gate: passed");
    // Not a terminal: no progress bar.
    expect(passing.stderr).not.toContain("[#");

    const failing = await gate(["--evaluator", setup.first, "--min-pass-rate", "0.9"]);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toContain("Gate: FAILED: pass rate 50.0% is under --min-pass-rate 90.0%");
    expect(failing.stderr).toContain("gate failed");
  }, 90_000);

  it("compares with --baseline: fails on --max-regressions 0, passes on 1; --json reports the comparison", async () => {
    const baseline = await gate(["--evaluator", setup.first, "--json"]);
    expect(baseline.code, baseline.stderr).toBe(0);
    const baselineRunId = JSON.parse(baseline.stdout).runId as string;

    const failing = await gate(["--evaluator", setup.second, "--baseline", baselineRunId, "--max-regressions", "0"]);
    expect(failing.code, failing.stderr).toBe(1);
    expect(failing.stdout).toMatch(/rows regressed\s+1/);
    expect(failing.stdout).toMatch(/rows improved\s+1/);
    expect(failing.stdout).toMatch(/Regressed rows:\n {2}row_/);
    expect(failing.stdout).toContain("1 regressed row(s), over --max-regressions 0");

    const json = await gate([
      "--evaluator",
      setup.second,
      "--baseline",
      baselineRunId,
      "--max-regressions",
      "1",
      "--min-pass-rate",
      "0.5",
      "--json",
    ]);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report).toMatchObject({
      status: "completed",
      passRate: 0.5,
      passed: true,
      failures: [],
      thresholds: { minPassRate: 0.5, maxRegressions: 1 },
      comparison: { baselineId: baselineRunId, totals: { changes: { regressed: 1, improved: 1, unchanged: 2 } } },
    });
    expect(report.comparison.regressedRowIds).toHaveLength(1);
  }, 90_000);

  it("--timeout: exit 1 with the reason when the run has not finished by then, and the run is cancelled", async () => {
    fake.configure({ latencyMs: 5_000 });
    try {
      const late = await gate(["--evaluator", setup.first, "--timeout", "1"]);
      expect(late.code, late.stderr).toBe(1);
      expect(late.stderr).toMatch(
        /run (evalrun_\w+) did not finish within --timeout 1 s \(\w+, \d+\/4 rows\); it was cancelled/,
      );
      const runId = /run (evalrun_\w+) did not finish/.exec(late.stderr)?.[1];
      const call = processApi(env.PHAROS_URL as string, env.PHAROS_API_KEY as string);
      const run = await call("GET", `/prompts/${setup.promptId}/evaluations/${runId}`);
      expect(["cancelling", "cancelled"]).toContain(run.status);
    } finally {
      fake.configure({ latencyMs: 5 });
    }
  }, 90_000);

  it("exit 2 for bad arguments; exit 1 for an API refusal such as an unknown prompt", async () => {
    for (const args of [
      ["--min-pass-rate", "1.5"],
      ["--max-regressions", "1"],
      ["--deployment", "deployment_01JD8Q4M1N0B5ZK3W7X9Y2C4VA", "--draft"],
      ["--baseline"],
      ["--timeout", "0"],
    ]) {
      const result = await gate(args);
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(2);
    }
    const noKey = await runCliProcess(["eval", "run", "--prompt", setup.promptId], {
      PHAROS_URL: env.PHAROS_URL as string,
    });
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("PHAROS_API_KEY");
    const unknown = await runCliProcess(["eval", "run", "--prompt", `prompt_${"0".repeat(26)}`], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("404 RESOURCE_NOT_FOUND");
  }, 90_000);
});
