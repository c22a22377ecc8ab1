/** The calling API key through the client, every response validated against the spec. */
import { describe, expect, it } from "vitest";
import { inProcessOnly, itProvokedEveryDocumentedStatus, itRequiresAKey, type Send } from "./cases.ts";
import { expectStatus } from "./replies.ts";
import { useTarget } from "./target.ts";

const use = useTarget();

describe("getCurrentApiKey", () => {
  const send: Send = (client, extra) => client.GET("/api-keys/current", { ...extra });

  it("200: the target's key, with its role and projects, never its secret", async () => {
    const reply = await send(use().client, {});
    expectStatus(reply, 200);
    expect(reply.data).toMatchObject({ id: expect.stringMatching(/^apikey_/), name: expect.any(String) });
    expect(["full", "read-only", "ingest-only"]).toContain((reply.data as { role: string }).role);
  });

  it("200 for every role: each key reads itself, restricted or not", async (ctx) => {
    const t = use();
    const admin = inProcessOnly(ctx, t, "keys of other roles");
    for (const role of ["full", "read-only", "ingest-only"] as const) {
      for (const projectIds of [null, [t.projectId]]) {
        const reply = await send(t.clientWithKey(await admin.newKey(role, projectIds)), {});
        expectStatus(reply, 200);
        expect(reply.data).toMatchObject({ role, projectIds });
      }
    }
  });

  itRequiresAKey(use, send);
});

itProvokedEveryDocumentedStatus(use, ["getCurrentApiKey"], {
  getCurrentApiKey: {
    "400": "the operation takes no parameters and no body: no request to it is malformed",
    "403": "every role may read its own key, whatever projects it is restricted to",
  },
});
