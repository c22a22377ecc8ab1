/** Cases every operation shares, from one factory: authentication, the error envelope, request ids. */
import { expect, it } from "vitest";
import type { Harness } from "./harness.ts";

export interface OperationCall {
  method: string;
  /** Path of an existing resource (ids of the harness's workspace). */
  path: (h: Harness) => string | Promise<string>;
  body?: (h: Harness) => unknown;
}

export function itRejectsMissingAndInvalidKeys(use: () => Harness, call: OperationCall): void {
  it("answers 401 AUTHENTICATION_REQUIRED without a key, with a malformed key and with an unknown key", async () => {
    const h = use();
    const path = await call.path(h);
    const body = call.body?.(h);
    const unknownKey = "phk_01JD8Q2A1B2C3D4E5F6G7H8J9K_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    for (const key of [null, "not-a-key", unknownKey]) {
      const reply = await h.request(call.method, path, { key, body });
      expect(reply.status).toBe(401);
      expect(reply.body.error.code).toBe("AUTHENTICATION_REQUIRED");
      expect(reply.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
}

export function itHidesOtherWorkspaces(use: () => Harness, call: OperationCall): void {
  it("answers 404 RESOURCE_NOT_FOUND to a key of another workspace", async () => {
    const h = use();
    const other = await h.otherWorkspace();
    const reply = await h.request(call.method, await call.path(h), { key: other.key, body: call.body?.(h) });
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe("RESOURCE_NOT_FOUND");
  });
}

export function itRejectsMalformedJson(use: () => Harness, call: OperationCall): void {
  it("answers 400 VALIDATION_ERROR to malformed JSON and to a non-JSON content type", async () => {
    const h = use();
    const path = await call.path(h);
    const malformed = await h.request(call.method, path, {
      rawBody: "{not json",
      headers: { "Content-Type": "application/json" },
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe("VALIDATION_ERROR");
    const text = await h.request(call.method, path, { rawBody: "hello", headers: { "Content-Type": "text/plain" } });
    expect(text.status).toBe(400);
    expect(text.body.error.code).toBe("VALIDATION_ERROR");
  });
}

export async function expectError(reply: { status: number; body: any }, status: number, code: string) {
  expect({ status: reply.status, code: reply.body?.error?.code }, JSON.stringify(reply.body)).toEqual({ status, code });
}
