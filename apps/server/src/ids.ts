import { randomBytes } from "node:crypto";
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
  webhook: "webhook",
  webhookEvent: "ev",
  webhookDelivery: "delivery",
  score: "score",
  scoreConfig: "scoreconfig",
} as const;

export type EntityKind = keyof typeof PREFIXES;
export type IdGenerator = (kind: EntityKind) => string;

/**
 * Cryptographic random numbers in [0, 1) drawn from a pooled buffer: ulidx's default asks the system for
 * every one of the 16 random characters of an id, a measurable cost when a log write makes six ids.
 */
function pooledRandom(): () => number {
  const POOL_BYTES = 4_096;
  let pool = randomBytes(POOL_BYTES);
  let offset = 0;
  return () => {
    if (offset === POOL_BYTES) {
      pool = randomBytes(POOL_BYTES);
      offset = 0;
    }
    const value = pool.readUInt32BE(offset) / 2 ** 32;
    offset += 4;
    return value;
  };
}

export function createIdGenerator(now: () => number): IdGenerator {
  const ulid = monotonicFactory(pooledRandom());
  return (kind) => `${PREFIXES[kind]}_${ulid(now())}`;
}
