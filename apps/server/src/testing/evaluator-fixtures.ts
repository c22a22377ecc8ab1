/** Fixtures of the evaluator tests: a prompt and a dataset to judge with, and evaluators made through the API. */
import { expect } from "vitest";
import type { Harness } from "./harness.ts";

export const RUBRIC = { type: "llm-as-a-judge", value: "Pass if the answer is polite." };

/** A prompt and a dataset of the project. */
export async function fixture(h: Harness, projectId = h.projectId) {
  const prompt = await h.request("POST", "/prompts", { body: { projectId, title: "Support" } });
  const dataset = await h.request("POST", "/datasets", { body: { projectId, title: "Questions" } });
  expect([prompt.status, dataset.status]).toEqual([201, 201]);
  return { promptId: prompt.body.id as string, datasetId: dataset.body.id as string };
}

/** POST /prompts/{promptId}/evaluators with a title and the harness's project unless `body` says otherwise. */
export async function createEvaluator(h: Harness, promptId: string, body: Record<string, unknown>) {
  return h.request("POST", `/prompts/${promptId}/evaluators`, {
    body: { projectId: h.projectId, title: "E", ...body },
  });
}

/** A config judged by `model` of the provider record `providerId`. */
export const judged = (providerId: string) => ({ ...RUBRIC, judgeModel: { providerId, model: "gpt-4o-mini" } });

/** A prompt and a dataset, a provider record of the workspace and one of another workspace, for judge models. */
export async function judgeFixture(h: Harness) {
  const record = await h.request("POST", "/providers", { body: { provider: "openai", displayName: "Judge" } });
  const foreign = await h.request("POST", "/providers", {
    body: { provider: "openai", displayName: "Judge" },
    key: (await h.otherWorkspace()).key,
  });
  expect([record.status, foreign.status]).toEqual([201, 201]);
  return { ...(await fixture(h)), record: record.body.id as string, foreign: foreign.body.id as string };
}
