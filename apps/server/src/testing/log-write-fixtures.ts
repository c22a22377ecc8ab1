/**
 * Fixtures of the log write tests (testing only): request bodies for traces and spans of every content type,
 * prompts and deployments to name, and readers of what a write stored (the trace and span rows, and the
 * indexed attribute and tag rows the search relies on).
 */
import { expect } from "vitest";
import type { Harness } from "./harness.ts";

/** The start of the tests' time line (2024-11-21T12:00:00Z). */
export const T0 = 1_732_190_400_000;

/** A request body: free-form, invalid ones included. */
export type Body = Record<string, any>;

export const platformInput = JSON.stringify({
  messages: [{ role: "user", content: [{ modality: "text", value: "Where is my order 8812?" }] }],
});
export const platformOutput = (promptTokens: number, completionTokens: number) =>
  JSON.stringify({
    messages: [{ role: "assistant", content: [{ modality: "text", value: "It ships tomorrow." }] }],
    tokenUsage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
  });

/** A Model span in platform form. */
export function modelSpan(overrides: Body = {}, content: Body = {}): Body {
  return {
    name: "llm-call",
    status: "success",
    startedAt: T0 + 100,
    endedAt: T0 + 1300,
    content: {
      type: "Model",
      provider: "openai",
      model: "gpt-4o-mini",
      input: platformInput,
      output: platformOutput(12, 5),
      cost: 0.25,
      ...content,
    },
    ...overrides,
  };
}

/** A span with `input`/`output` content of `type` (Tool by default). */
export function stepSpan(overrides: Body = {}, type = "Tool"): Body {
  return {
    name: "lookup_order",
    status: "success",
    startedAt: T0 + 1400,
    endedAt: T0 + 1450,
    content: { type, input: '{"orderId":"8812"}', output: '{"status":"shipped"}' },
    ...overrides,
  };
}

export function traceBody(h: Harness, trace: Body = {}, spans?: Body[] | null, projectId = h.projectId): Body {
  return {
    projectId,
    trace: { name: "support-chat", status: "success", startedAt: T0, endedAt: T0 + 2000, ...trace },
    ...(spans !== undefined && { spans }),
  };
}

export const postTrace = (h: Harness, body: Body, key?: string) => h.request("POST", "/logs/trace", { body, key });
export const postSpan = (h: Harness, body: Body, key?: string) => h.request("POST", "/logs/span", { body, key });
export const patchTrace = (h: Harness, body: Body, key?: string) => h.request("PATCH", "/logs/trace", { body, key });

/** Creates a trace; fails the test on anything but 200. */
export async function createTrace(h: Harness, body: Body): Promise<{ traceId: string; spanIds: string[] }> {
  const reply = await postTrace(h, body);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
}

let uniqueCounter = 0;
/** A referenceId no other test uses. */
export const uniqueRef = (prefix = "ref") => `${prefix}-${process.pid}-${++uniqueCounter}-${Date.now()}`;

export async function newProject(h: Harness): Promise<string> {
  const reply = await h.request("POST", "/projects", { body: { title: "Logs elsewhere" } });
  expect(reply.status).toBe(201);
  return reply.body.id;
}

export async function newPrompt(h: Harness, projectId = h.projectId): Promise<string> {
  const reply = await h.request("POST", "/prompts", { body: { projectId } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.id;
}

/** A deployment of a new prompt of the project: its ids. */
export async function newDeployment(h: Harness, projectId = h.projectId) {
  const promptId = await newPrompt(h, projectId);
  const environment = await h.request("POST", `/projects/${projectId}/deployment-environments`, {
    body: { name: `env-${h.now()}` },
  });
  expect(environment.status).toBe(201);
  const deployment = await h.request("POST", `/prompts/${promptId}/deployments`, {
    body: { deploymentEnvironmentId: environment.body.id },
  });
  expect(deployment.status, JSON.stringify(deployment.body)).toBe(201);
  return { promptId, deploymentId: deployment.body.id as string };
}

export const missingId = (prefix: string) => `${prefix}_${"0".repeat(26)}`;

// Readers of the stored state (the tests' way to see what search will read).

export async function storedTrace(h: Harness, traceId: string) {
  const row = await h.store.db.selectFrom("logTraces").selectAll().where("id", "=", traceId).executeTakeFirst();
  if (!row) return undefined;
  return {
    ...row,
    attributes: JSON.parse(row.attributes),
    tags: JSON.parse(row.tags),
    spanIds: JSON.parse(row.spanIds) as string[],
  };
}

export async function storedSpans(h: Harness, traceId: string) {
  const rows = await h.store.db
    .selectFrom("logSpans")
    .selectAll()
    .where("traceId", "=", traceId)
    .orderBy("id")
    .execute();
  return rows.map((row) => ({
    ...row,
    attributes: JSON.parse(row.attributes),
    tags: JSON.parse(row.tags),
    events: JSON.parse(row.events),
  }));
}

/** The indexed attribute rows of an owner, keyed by attribute. */
export async function attributeIndex(h: Harness, ownerKind: "trace" | "span", ownerId: string) {
  const rows = await h.store.db
    .selectFrom("logAttributes")
    .selectAll()
    .where("ownerKind", "=", ownerKind)
    .where("ownerId", "=", ownerId)
    .execute();
  return Object.fromEntries(rows.map(({ key, ...rest }) => [key, rest]));
}

/** The indexed tags of an owner, sorted. */
export async function tagIndex(h: Harness, ownerKind: "trace" | "span", ownerId: string) {
  const rows = await h.store.db
    .selectFrom("logTags")
    .selectAll()
    .where("ownerKind", "=", ownerKind)
    .where("ownerId", "=", ownerId)
    .execute();
  return rows.map((row) => row.tag).sort();
}

export async function countRows(h: Harness, table: "logTraces" | "logSpans", projectId: string): Promise<number> {
  const row = await h.store.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("projectId", "=", projectId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A string whose compact JSON form is `bytes` long (ASCII). */
export const jsonTextOfBytes = (bytes: number) => JSON.stringify("x".repeat(bytes - 2));

/**
 * A trace named `label` at `startedAt` with two spans, attributes and tags on all three (for retention and
 * partition tests); with `referenceId`, the trace and its spans carry reference ids derived from it.
 */
export function datedTrace(
  h: Harness,
  projectId: string,
  startedAt: number,
  label: string,
  referenceId?: string,
): Body {
  const span = (offset: number): Body => ({
    name: `${label}-span-${offset}`,
    status: "success",
    startedAt: startedAt + offset,
    endedAt: startedAt + offset + 10,
    content: { type: "Tool", input: '{"q":1}', output: '{"a":2}' },
    attributes: { label, step: offset },
    tags: [label, "step"],
    ...(referenceId && { referenceId: `${referenceId}-span-${offset}` }),
  });
  return traceBody(
    h,
    {
      name: label,
      startedAt,
      endedAt: startedAt + 1000,
      attributes: { label },
      tags: [label, "kept-tag"],
      ...(referenceId && { referenceId }),
    },
    [span(1), span(2)],
    projectId,
  );
}
