/** Fixtures of the deployment tests: prompts, environments and deployments made through the API. */
import { expect } from "vitest";
import type { Harness } from "../../testing/harness.ts";

export const text = (value: string) => ({ modality: "text", value });
export const keyId = (key: string) => `apikey_${key.split("_")[1]}`;

export async function createPrompt(h: Harness, body: Record<string, unknown> = {}) {
  const reply = await h.request("POST", "/prompts", { body: { projectId: h.projectId, ...body } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body;
}

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

export async function newProject(h: Harness) {
  return (await h.request("POST", "/projects", { body: { title: "Another" } })).body.id as string;
}

/** A deployed prompt of the harness's project: ids for the shared cases. */
export async function deployed(h: Harness) {
  const prompt = await createPrompt(h);
  const environmentId = await createEnvironment(h);
  const deployment = await deploy(h, prompt.id, environmentId);
  return { promptId: prompt.id as string, environmentId, deploymentId: deployment.id as string };
}
