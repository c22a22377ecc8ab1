/**
 * Fields of `format: uri` take RFC 3986 URIs only, as the spec (and any JSON Schema validator of a response)
 * reads the format: a string only the WHATWG URL parser takes would be stored and answered in a form that breaks
 * the response schema.
 */
import { expect, it } from "vitest";
import { expectError } from "../testing/expect-error.ts";
import { describeEachStore } from "../testing/harness.ts";

describeEachStore("format uri", (use) => {
  it("refuses a provider baseUrl and an image icon that are no URI, and stores nothing", async () => {
    const h = use();
    const providers = async () => (await h.request("GET", "/providers?limit=200")).body.providers.length;
    const before = await providers();
    for (const baseUrl of ["http://gateway.local/v1 beta", "https://gateway.example.com/ü"]) {
      const reply = await h.request("POST", "/providers", {
        body: { provider: "openai-compatible", displayName: baseUrl, baseUrl },
      });
      await expectError(reply, 400, "VALIDATION_ERROR");
      expect(reply.body.error.details[0].field).toBe("baseUrl");
    }
    expect(await providers()).toBe(before);

    const icon = await h.request("POST", "/projects", {
      body: { title: "icon", icon: { type: "image", value: "https://cdn.example.com/a b.png" } },
    });
    await expectError(icon, 400, "VALIDATION_ERROR");
    expect(icon.body.error.details[0].field).toBe("icon.value");

    const encoded = await h.request("POST", "/providers", {
      body: { provider: "openai-compatible", displayName: "encoded", baseUrl: "https://gateway.example.com/%C3%BC/v1" },
    });
    expect(encoded.status).toBe(201);
  });
});
