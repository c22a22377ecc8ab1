/** Fixtures of the provider tests: records made through the API, and their rows as stored. */
import { expect } from "vitest";
import type { Harness } from "./harness.ts";

export const API_KEY = "sk-proj-NEVER-SHOWN-4f9a1c";

let counter = 0;
/** A display name no other test of the harness uses. */
export const uniqueName = (base = "Provider") => `${base} ${++counter}`;

export async function createProvider(h: Harness, body: Record<string, unknown> = {}, key?: string) {
  const reply = await h.request("POST", "/providers", {
    body: { provider: "openai", displayName: uniqueName(), ...body },
    key,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body;
}

/** The record's row, credentials sealed. */
export async function storedRow(h: Harness, id: string) {
  return h.store.db.selectFrom("providers").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}
