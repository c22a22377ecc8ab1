/** Resources the scenarios build on, created through the API (so they work against any target). */
import { type PharosClient, unwrap } from "@pharos/client";
import type { components } from "@pharos/contract";

export type Schemas = components["schemas"];

/** Ids of the right shape that name nothing. */
export const unknownId = (prefix: string) => `${prefix}_${"0".repeat(26)}`;

/** A short random tag, so names are unique per run even against a long-lived server. */
export const runTag = () => Math.random().toString(36).slice(2, 8);

export const text = (value: string) => ({ modality: "text" as const, value });

/** A complete draft: a model configuration, messages with two variables, and one tool. */
export const fullDraft = {
  config: { provider: "openai", model: "gpt-4o-mini", settings: { temperature: 0.2, maxTokens: 256 } },
  messages: [
    { role: "system" as const, content: [text("You answer questions about {{product}}.")] },
    { role: "user" as const, content: [text("{{question}}")] },
  ],
  tools: [
    {
      type: "function" as const,
      definition: { schema: { name: "get_order_status", description: "Look up an order by its id." } },
    },
  ],
};

export async function newProject(client: PharosClient, title: string): Promise<Schemas["Project"]> {
  return unwrap(await client.POST("/projects", { body: { title } }));
}

export async function newEnvironment(
  client: PharosClient,
  projectId: string,
  name: string,
): Promise<Schemas["DeploymentEnvironment"]> {
  return unwrap(
    await client.POST("/projects/{projectId}/deployment-environments", {
      params: { path: { projectId } },
      body: { name },
    }),
  );
}

export async function newPrompt(
  client: PharosClient,
  projectId: string,
  body: Omit<Schemas["CreatePromptRequest"], "projectId"> = {},
): Promise<Schemas["Prompt"]> {
  return unwrap(await client.POST("/prompts", { body: { projectId, ...body } }));
}

export async function deploy(
  client: PharosClient,
  promptId: string,
  deploymentEnvironmentId: string,
): Promise<Schemas["Deployment"]> {
  return unwrap(
    await client.POST("/prompts/{promptId}/deployments", {
      params: { path: { promptId } },
      body: { deploymentEnvironmentId },
    }),
  );
}

export async function newDataset(
  client: PharosClient,
  projectId: string,
  body: Omit<Schemas["CreateDatasetRequest"], "projectId"> = { title: "Dataset" },
): Promise<Schemas["Dataset"]> {
  return unwrap(await client.POST("/datasets", { body: { projectId, ...body } }));
}

export const judgeConfig = { type: "llm-as-a-judge" as const, value: "Pass when the answer is polite." };

export async function newEvaluator(
  client: PharosClient,
  prompt: { id: string; projectId: string },
  datasetId: string,
  title = "Politeness",
): Promise<Schemas["Evaluator"]> {
  return unwrap(
    await client.POST("/prompts/{promptId}/evaluators", {
      params: { path: { promptId: prompt.id } },
      body: { projectId: prompt.projectId, title, datasetId, config: judgeConfig },
    }),
  );
}

export async function newProvider(
  client: PharosClient,
  body: Schemas["CreateProviderRequest"],
): Promise<Schemas["Provider"]> {
  return unwrap(await client.POST("/providers", { body }));
}
