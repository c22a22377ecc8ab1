/** Assertions on the reply to one request: its status, and for an error the code of its body. */
import { expect } from "vitest";
import type { Reply } from "./cases.ts";

export function expectError(reply: Reply, status: number, code: string): void {
  const body = reply.error as { error?: { code?: string } } | undefined;
  expect({ status: reply.response.status, code: body?.error?.code }, JSON.stringify(reply.error)).toEqual({
    status,
    code,
  });
}

export function expectStatus(reply: Reply, status: number): void {
  expect(reply.response.status, JSON.stringify(reply.error ?? reply.data)).toBe(status);
}
