import { monotonicFactory } from "ulidx";

/** Entity kinds and their id prefixes: `prompt_01JD…` (prefix + ULID: 20–80 chars, sortable by creation). */
const PREFIXES = {
  workspace: "workspace",
  apiKey: "apikey",
  project: "project",
  environment: "env",
  prompt: "prompt",
  playground: "playground",
  deployment: "deployment",
  dataset: "dataset",
  column: "column",
  row: "row",
  evaluator: "evaluator",
  trace: "trace",
  span: "span",
  provider: "provider",
  evaluationRun: "evalrun",
  evaluationResult: "evalresult",
} as const;

export type EntityKind = keyof typeof PREFIXES;
export type IdGenerator = (kind: EntityKind) => string;

export function createIdGenerator(now: () => number): IdGenerator {
  const ulid = monotonicFactory();
  return (kind) => `${PREFIXES[kind]}_${ulid(now())}`;
}
