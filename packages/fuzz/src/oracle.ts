/**
 * What every answer must be: not a 5xx; a status the spec declares for the operation, with headers and a body
 * valid against the spec's response for that status (ajv, not the server's zod); and when the request was
 * refused, or was a read, the database as it was before.
 */
import { checkResponse } from "@pharos/conformance/validator";
import { changedTables, type Fingerprint } from "./fingerprint.ts";
import type { FuzzRequest, FuzzResponse } from "./requests/http.ts";
import type { OperationShape } from "./spec.ts";

/** Whether the database must be unchanged after this answer: a refusal, or a read (GET never writes). */
export const mustLeaveDatabaseAlone = (shape: OperationShape, status: number) =>
  status >= 400 || shape.method === "GET";

export async function problemsOf(
  shape: OperationShape,
  request: FuzzRequest,
  response: FuzzResponse,
  before: Fingerprint,
  after: Fingerprint | undefined,
): Promise<string[]> {
  const problems: string[] = [];
  if (response.status >= 500) problems.push(`answered ${response.status}: no input may reach a 5xx`);
  const sent = new Request(request.url, { method: request.method, headers: request.headers });
  problems.push(...(await checkResponse(shape.operation, response.toResponse(), sent)));
  if (after) {
    const changed = changedTables(before, after);
    if (changed.length > 0) {
      const why = response.status >= 400 ? `was refused (${response.status})` : "is a read";
      problems.push(`the request ${why} but changed the database: ${changed.join("; ")}`);
    }
  }
  return problems;
}
