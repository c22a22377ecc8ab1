/** Scores and score configs through the public API, for the score route tests. */
import { expect } from "vitest";
import type { Harness, Reply } from "./harness.ts";
import { createTrace, modelSpan, stepSpan, traceBody } from "./log-write-fixtures.ts";

export type ScoreBody = Record<string, unknown>;

export const postScores = (h: Harness, scores: ScoreBody[], options: { projectId?: string; key?: string } = {}) =>
  h.request("POST", `/projects/${options.projectId ?? h.projectId}/scores`, { body: { scores }, key: options.key });

/** Creates scores; fails the test on anything but 201. */
export async function createScores(h: Harness, scores: ScoreBody[], projectId?: string): Promise<any[]> {
  const reply = await postScores(h, scores, { projectId });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.scores;
}

export const searchScores = (h: Harness, body: Record<string, unknown> = {}, projectId = h.projectId) =>
  h.request("POST", `/projects/${projectId}/scores/search`, { body });

export const postScoreConfig = (h: Harness, body: Record<string, unknown>, projectId = h.projectId): Promise<Reply> =>
  h.request("POST", `/projects/${projectId}/score-configs`, { body });

/** Creates a score config; fails the test on anything but 201. */
export async function createScoreConfig(h: Harness, body: Record<string, unknown>, projectId = h.projectId) {
  const reply = await postScoreConfig(h, body, projectId);
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body;
}

/** A trace of the project with a Model span and a Tool span. */
export async function scoredTrace(h: Harness, projectId = h.projectId) {
  const { traceId, spanIds } = await createTrace(h, traceBody(h, {}, [modelSpan(), stepSpan()], projectId));
  return { traceId, spanId: spanIds[0] as string, otherSpanId: spanIds[1] as string };
}
