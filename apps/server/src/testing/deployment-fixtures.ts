/** Fixtures of the deployment tests: environments and deployments made through the API. */
import { expect } from "vitest";
import type { Harness } from "./harness.ts";
import { createPrompt } from "./prompt-fixtures.ts";

export const MISSING_DEPLOYMENT = `deployment_${"0".repeat(26)}`;
export const MISSING_ENV = `env_${"0".repeat(26)}`;

/** The id of the API key `key` (its `createdByUserId` on a deployment). */
export const keyId = (key: string) => `apikey_${key.split("_")[1]}`;

export async function createEnvironment(h: Harness, projectId = h.projectId) {
  const name = `env-${h.now()}`;
  const reply = await h.request("POST", `/projects/${projectId}/deployment-environments`, { body: { name } });
  expect(reply.status).toBe(201);
  return reply.body.id as string;
}

export async function deploy(h: Harness, promptId: string, deploymentEnvironmentId: string) {
  const reply = await h.request("POST", `/prompts/${promptId}/deployments`, { body: { deploymentEnvironmentId } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body;
}

/** A deployed prompt of the harness's project. */
export async function deployed(h: Harness) {
  const prompt = await createPrompt(h);
  const environmentId = await createEnvironment(h);
  const deployment = await deploy(h, prompt.id, environmentId);
  return { promptId: prompt.id as string, environmentId, deploymentId: deployment.id as string };
}
