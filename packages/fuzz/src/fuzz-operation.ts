/**
 * Fuzzes one operation: fast-check draws cases (requests/cases.ts), each is sent to the world's server and its
 * answer judged (oracle.ts). On a failure, the shrunk case's request and response are reported with the seed
 * and path that replay it.
 */
import * as fc from "fast-check";
import { asRawBody, OVER_THE_LIMIT } from "./body/raw-bodies.ts";
import type { FuzzConfig } from "./config.ts";
import type { Fingerprint } from "./fingerprint.ts";
import { mustLeaveDatabaseAlone, problemsOf } from "./oracle.ts";
import { casesFor, type FuzzCase, requestOf } from "./requests/cases.ts";
import { describeRequest, describeResponse, type FuzzResponse, send } from "./requests/http.ts";
import type { OperationShape } from "./spec.ts";
import type { Value } from "./values/json-value.ts";
import type { World } from "./world.ts";

export class FuzzFailure extends Error {
  override name = "FuzzFailure";
}

export interface FuzzWorld extends World {
  fingerprint(): Promise<Fingerprint>;
}

/**
 * Each operation's own seed, from the run's seed and its operationId: one seed for all would make every
 * operation draw the same sequence of choices.
 */
export function seedOf(shape: OperationShape, config: FuzzConfig): number {
  let hash = 0x811c9dc5;
  for (const char of shape.operationId) hash = Math.imul(hash ^ (char.codePointAt(0) as number), 0x01000193);
  return (hash ^ config.seed) | 0;
}

/** Cases for an operation: those without a body have only parameters and headers to vary. */
export const runsFor = (shape: OperationShape, config: FuzzConfig) =>
  shape.body ? config.runs : Math.max(1, Math.ceil(config.runs / 3));

/** The statuses an operation answered, with how often: the run's summary shows how deep the cases went. */
export type StatusCounts = Map<number, number>;

export async function fuzzOperation(
  world: FuzzWorld,
  shape: OperationShape,
  config: FuzzConfig,
): Promise<StatusCounts> {
  const bodies: Value[] = (shape.body?.examples ?? []).map((example) => world.substitute(example));
  const statuses: StatusCounts = new Map();
  let serial = 0;
  const property = fc.asyncProperty(casesFor(shape, world, bodies), async (fuzzCase: FuzzCase) => {
    const freshIds = await world.freshIdsFor(shape.operationId);
    const request = requestOf(shape, world, fuzzCase, bodies, freshIds, ++serial);
    let before = await world.fingerprint();
    let response: FuzzResponse;
    try {
      response = await send(request);
    } catch (first) {
      // A kept-alive connection the server closes as it is reused fails a request under load: one more try on
      // a new connection. A connection dropped twice is a finding.
      before = await world.fingerprint();
      try {
        response = await send(request);
      } catch (second) {
        const why = `${causeOf(first)}, then ${causeOf(second)}`;
        throw new FuzzFailure(`${describeRequest(request)}\n\nthe request failed twice without an answer: ${why}`);
      }
    }
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    const after = mustLeaveDatabaseAlone(shape, response.status) ? await world.fingerprint() : undefined;
    const problems = await problemsOf(shape, request, response, before, after);
    await world.cleanUpAfter(shape.operationId, response.status, parseOrNull(response.text));
    if (problems.length > 0) {
      throw new FuzzFailure(
        [
          `${shape.operationId} (${shape.method} ${shape.path}), a case of ${fuzzCase.kind}:`,
          ...problems.map((problem) => `- ${problem}`),
          "",
          "Request:",
          describeRequest(request),
          "",
          "Response:",
          describeResponse(response),
        ].join("\n"),
      );
    }
  });
  const seed = seedOf(shape, config);
  // Every operation with a body gets one body over the limit (chunked or not as its seed says): a slow case
  // that drawing alone would give only some operations.
  const examples: [FuzzCase][] = shape.body
    ? [[{ kind: "whole body", base: 0, raw: asRawBody(OVER_THE_LIMIT, (seed & 1) === 1) }]]
    : [];
  const details = await fc.check(property, {
    seed,
    numRuns: runsFor(shape, config),
    examples,
    ...(config.path !== undefined && { path: config.path }),
  });
  if (details.failed) {
    const replay = `PHAROS_FUZZ_SEED=${config.seed} PHAROS_FUZZ_PATH=${details.counterexamplePath} PHAROS_FUZZ_OPERATIONS=${shape.operationId}`;
    const error =
      details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    throw new FuzzFailure(
      `${fc.defaultReportMessage(details)}\n\n${error}\n\nReplay: ${replay} pnpm --filter @pharos/fuzz test`,
    );
  }
  return statuses;
}

const causeOf = (error: unknown) => {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause ? `${String(error)} (${cause.code ?? ""} ${cause.message ?? ""})` : String(error);
};

function parseOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
