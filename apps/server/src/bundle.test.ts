/**
 * The server as `pnpm start` runs it: the esbuild bundle of scripts/build.ts, started with plain Node. It
 * serves the API and runs an evaluation whose JavaScript evaluator needs the sandbox thread's own entry and
 * the lazily loaded row pipeline, both separate files of the bundle.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { issueKey } from "./auth/api-keys.ts";
import { createIdGenerator } from "./ids.ts";
import { startFakeProvider } from "./testing/fake-provider.ts";
import {
  buildServerBundle,
  SERVER_DIR,
  type ServerProcess,
  startBuiltServer,
  tempDatabaseDir,
} from "./testing/processes.ts";

// Inside apps/server, so that the bundle's npm imports resolve from its node_modules as in dist/.
const outdir = mkdtempSync(join(SERVER_DIR, ".bundle-test-"));
const files = tempDatabaseDir();
let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.stop("SIGKILL").catch(() => {});
  rmSync(outdir, { recursive: true, force: true });
  files.dispose();
});

it("builds, starts and evaluates with a JavaScript evaluator from the bundle", async () => {
  const built = await buildServerBundle(outdir);
  expect(built.code, built.stderr).toBe(0);
  const fake = await startFakeProvider();
  try {
    const key = issueKey(createIdGenerator(Date.now)("apiKey")).key;
    server = startBuiltServer(join(outdir, "main.js"), { DATABASE_URL: files.url(), PHAROS_BOOTSTRAP_API_KEY: key });
    const url = await server.ready();
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${url}/v2${path}`, {
        method,
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const payload = (await response.json()) as any;
      expect(response.status, JSON.stringify(payload)).toBeLessThan(300);
      return payload;
    };
    const projectId = (await call("GET", "/projects")).projects[0].id;
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
      title: "Rows",
      columns: [{ name: "question", type: "static" }],
    });
    await call("POST", `/datasets/${dataset.id}/rows`, {
      rows: [{ values: { question: "one" } }, { values: { question: "two" } }],
    });
    await call("POST", `/prompts/${prompt.id}/evaluators`, {
      projectId,
      datasetId: dataset.id,
      title: "Echoes",
      config: {
        type: "javascript",
        code: "const ok = data.output === 'Echo: ' + data.variables.question; return { grade: ok ? 'pass' : 'fail', score: ok ? 1 : 0, reason: data.output };",
      },
    });
    const run = await call("POST", `/prompts/${prompt.id}/evaluations`, {});
    let current = run;
    for (let attempt = 0; attempt < 300 && ["queued", "running"].includes(current.status); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      current = await call("GET", `/prompts/${prompt.id}/evaluations/${run.runId}`);
    }
    expect(current).toMatchObject({ status: "completed", metrics: { passRuns: 2, failRuns: 0, unknownRuns: 0 } });
  } finally {
    await fake.close();
  }
});
