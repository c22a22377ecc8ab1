/**
 * Fixtures of the evaluation tests: a runnable prompt with an evaluator over a small dataset, built through the
 * API. No worker runs in the harness, so a run stays `queued` unless a test moves it by writing the run's
 * tables straight through `h.store.db` (standing in for a worker).
 */
import { expect } from "vitest";
import { createIdGenerator } from "../ids.ts";
import type { Database } from "../store/schema.ts";
import type { Harness } from "./harness.ts";

export const MATCHER = { type: "text-matcher", operator: "equals", value: "{{expected}}" };

export const RUNNABLE_DRAFT = {
  config: { provider: "openai", model: "gpt-4o-mini", settings: { temperature: 0 } },
  messages: [{ role: "user", content: [{ modality: "text", value: "{{question}}" }] }],
};

export interface Setup {
  promptId: string;
  datasetId: string;
  evaluatorId: string;
  /** Column ids by name. */
  columns: { question: string; expected: string };
  /** The dataset's rows in creation order. */
  rowIds: string[];
}

export async function ok(h: Harness, method: string, path: string, body?: unknown, key?: string) {
  const reply = await h.request(method, path, { body, key });
  expect(reply.status, `${method} ${path}: ${JSON.stringify(reply.body)}`).toBeLessThan(300);
  return reply.body;
}

/** A dataset of the project with `question` and `expected` columns and `rows` rows. */
export async function newDataset(h: Harness, rows = 3, projectId = h.projectId) {
  const dataset = await ok(h, "POST", "/datasets", {
    projectId,
    title: "Questions",
    columns: [
      { name: "question", type: "static" },
      { name: "expected", type: "static" },
    ],
  });
  const values = Array.from({ length: rows }, (_, i) => ({ values: { question: `Q${i}`, expected: `A${i}` } }));
  const created = rows > 0 ? (await ok(h, "POST", `/datasets/${dataset.id}/rows`, { rows: values })).rows : [];
  const [question, expected] = dataset.columns.map((column: { id: string }) => column.id);
  return {
    datasetId: dataset.id as string,
    columns: { question, expected },
    rowIds: created.map((row: { id: string }) => row.id) as string[],
  };
}

export async function newEvaluator(h: Harness, promptId: string, datasetId: string, projectId = h.projectId) {
  const body = { projectId, title: "Matches", datasetId, config: MATCHER };
  return (await ok(h, "POST", `/prompts/${promptId}/evaluators`, body)).id as string;
}

/** A runnable prompt (`draft` replaces its draft), a dataset of `rows` rows and one active evaluator on it. */
export async function setup(
  h: Harness,
  options: { rows?: number; projectId?: string; draft?: unknown } = {},
): Promise<Setup> {
  const projectId = options.projectId ?? h.projectId;
  const prompt = await ok(h, "POST", "/prompts", {
    projectId,
    title: "Answer",
    draft: options.draft ?? RUNNABLE_DRAFT,
  });
  const dataset = await newDataset(h, options.rows ?? 3, projectId);
  const evaluatorId = await newEvaluator(h, prompt.id, dataset.datasetId, projectId);
  return { promptId: prompt.id, evaluatorId, ...dataset };
}

/** POST /prompts/{id}/evaluations, which must be accepted (202). */
export async function startRun(h: Harness, promptId: string, body: Record<string, unknown> = {}) {
  const reply = await h.request("POST", `/prompts/${promptId}/evaluations`, { body });
  expect(reply.status, JSON.stringify(reply.body)).toBe(202);
  return reply.body;
}

/** Moves a run as a worker would (status, timeline, counters). */
export async function setRun(h: Harness, runId: string, changes: Partial<Database["evaluationRuns"]>) {
  await h.store.db.updateTable("evaluationRuns").set(changes).where("id", "=", runId).execute();
}

const newId = createIdGenerator(() => Date.now());

/** Records a result as a worker would; `createdAt` and the grade's score as given. */
export async function insertResult(
  h: Harness,
  runId: string,
  rowId: string,
  result: Partial<Database["evaluationResults"]> & { createdAt: number },
) {
  const row: Database["evaluationResults"] = {
    id: newId("evaluationResult"),
    runId,
    rowId,
    grade: "pass",
    score: 1,
    reason: "Matches.",
    output: "A",
    error: null,
    cost: 0.0001,
    latency: 120,
    tokenCount: 20,
    ...result,
  };
  await h.store.db.insertInto("evaluationResults").values(row).execute();
  return row;
}

/** States of a run that still uses what it was started with. */
export const UNFINISHED = ["queued", "running", "cancelling"] as const;

/** The rows of a run in one of its tables. */
export async function countOf(
  h: Harness,
  table: "evaluationRuns" | "evaluationRunItems" | "evaluationResults",
  runId: string,
) {
  const column = table === "evaluationRuns" ? "id" : "runId";
  const { count } = await h.store.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where(column, "=", runId)
    .executeTakeFirstOrThrow();
  return Number(count);
}
