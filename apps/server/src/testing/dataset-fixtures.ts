/**
 * Fixtures of the dataset tests. Prompts and evaluators are written straight into their tables: the dataset
 * operations only read them (a prompt column's prompt, an evaluator that keeps a dataset), and this keeps the
 * dataset tests independent of the prompt and evaluator operations.
 */
import { expect } from "vitest";
import type { Harness } from "./harness.ts";

let sequence = 0;
const fakeId = (prefix: string) => `${prefix}_01JD8Q4M1N0B5ZK3W7X9${String(++sequence).padStart(6, "0")}`;

export async function createDataset(h: Harness, body: Record<string, unknown> = {}, key?: string) {
  const reply = await h.request("POST", "/datasets", {
    body: { projectId: h.projectId, title: "Support questions", ...body },
    key,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body;
}

/** A dataset with static columns `question` and `expected`. */
export const createQaDataset = (h: Harness) =>
  createDataset(h, {
    columns: [
      { name: "question", type: "static" },
      { name: "expected", type: "static" },
    ],
  });

export async function addRows(h: Harness, datasetId: string, rows: Record<string, unknown>[], query = "") {
  const reply = await h.request("POST", `/datasets/${datasetId}/rows${query}`, {
    body: { rows: rows.map((values) => ({ values })) },
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.rows;
}

export async function insertPrompt(h: Harness, projectId = h.projectId): Promise<string> {
  const id = fakeId("prompt");
  const now = h.now();
  await h.store.db
    .insertInto("prompts")
    .values({
      id,
      workspaceId: h.workspaceId,
      projectId,
      title: "Answer",
      icon: JSON.stringify({ type: "emoji", value: "📝" }),
      draft: JSON.stringify({ config: {}, messages: [], tools: [] }),
      playground: JSON.stringify({ id: fakeId("playground"), title: "Default", messages: [] }),
      createdAt: now,
      updatedAt: now,
    })
    .execute();
  return id;
}

export async function insertEvaluator(h: Harness, datasetId: string, status: "active" | "archived" = "active") {
  const id = fakeId("evaluator");
  const now = h.now();
  await h.store.db
    .insertInto("evaluators")
    .values({
      id,
      workspaceId: h.workspaceId,
      projectId: h.projectId,
      promptId: await insertPrompt(h),
      datasetId,
      title: "Judge",
      config: JSON.stringify({ type: "llm-as-a-judge", value: "Is it right?" }),
      status,
      createdAt: now,
      updatedAt: now,
    })
    .execute();
  return id;
}

/** A project of the harness's workspace other than its default one. */
export async function otherProject(h: Harness): Promise<string> {
  const reply = await h.request("POST", "/projects", { body: { title: "Elsewhere" } });
  return reply.body.id;
}

/** A dataset with static columns `question`, `expected` and `tier`. */
export const createThreeColumns = (h: Harness) =>
  createDataset(h, {
    columns: [
      { name: "question", type: "static" },
      { name: "expected", type: "static" },
      { name: "tier", type: "static" },
    ],
  });

export const rowCount = async (h: Harness, datasetId: string) =>
  (await h.request("GET", `/datasets/${datasetId}`)).body.rowCount;

/** Every row of the dataset in the order they were added (`query` adds parameters). */
export const listRows = async (h: Harness, datasetId: string, query = "") =>
  (await h.request("GET", `/datasets/${datasetId}/rows?sort=createdAt:asc&limit=200${query}`)).body.rows;
