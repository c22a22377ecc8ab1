/**
 * What route tests share to check an error answer. The error matrix every operation shares (401, 403, 404 to
 * another workspace, 400 for malformed bodies, 413) is the conformance kit's: packages/conformance/src/cases.ts.
 */
import { expect } from "vitest";

export async function expectError(reply: { status: number; body: any }, status: number, code: string) {
  expect({ status: reply.status, code: reply.body?.error?.code }, JSON.stringify(reply.body)).toEqual({ status, code });
}
