/**
 * The example runs as a process of its own, as an application would: against a Pharos on loopback with a deployed
 * prompt and the fake LLM provider; its answer comes from the provider and its trace arrives in Pharos.
 */
import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { deployPrompt, type RunningPharos, spansOf, startPharos, tracesOf } from "@pharos/client/testing";
import { type FakeProvider, startFakeProvider } from "@pharos/server/testing";
import { afterAll, beforeAll, expect, it } from "vitest";

const run = promisify(execFile);
const MAIN = join(dirname(fileURLToPath(import.meta.url)), "main.ts");
const TSX = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

let pharos: RunningPharos;
let provider: FakeProvider;
beforeAll(async () => {
  pharos = await startPharos();
  provider = await startFakeProvider();
});
afterAll(async () => {
  await provider?.close();
  await pharos?.close();
});

it("answers with the deployed prompt through the model and logs the call to Pharos", async () => {
  const { promptId, environmentId, deployment } = await deployPrompt(
    pharos.client,
    pharos.projectId,
    "Answer the customer: {{question}}",
  );
  const { stdout } = await run(process.execPath, ["--import", TSX, MAIN, "Where is order 8812?"], {
    env: {
      PATH: process.env.PATH,
      PHAROS_BASE_URL: pharos.baseUrl,
      PHAROS_API_KEY: pharos.apiKey,
      PHAROS_PROJECT_ID: pharos.projectId,
      PHAROS_PROMPT_ID: promptId,
      PHAROS_ENVIRONMENT_ID: environmentId,
      OPENAI_BASE_URL: `${provider.url}/v1`,
      OPENAI_API_KEY: "sk-fake",
    },
    timeout: 60_000,
  });
  const { answer, traceReferenceId } = JSON.parse(stdout.trim());
  expect(answer).toBe("Echo: Answer the customer: Where is order 8812?");
  expect(provider.requests.at(-1)?.body).toMatchObject({ model: "gpt-4o-mini" });

  const [trace] = await tracesOf(pharos.client, pharos.projectId);
  expect(trace).toMatchObject({ referenceId: traceReferenceId, name: "support-bot", status: "success" });
  expect(trace?.totalInputTokens).toBeGreaterThan(0);
  const [span] = await spansOf(pharos.client, pharos.projectId);
  expect(span).toMatchObject({
    name: "llm-call",
    status: "success",
    contentType: "Model",
    promptId,
    deploymentId: deployment.id,
    logTraceId: trace?.id,
  });
  expect(JSON.parse(span?.content as string).variables).toEqual({
    question: { modality: "text", value: "Where is order 8812?" },
  });
});
