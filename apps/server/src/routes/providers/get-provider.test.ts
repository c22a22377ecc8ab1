import { expect, it } from "vitest";
import { describeEachStore } from "../../testing/harness.ts";
import { createProvider } from "../../testing/provider-fixtures.ts";

describeEachStore("getProvider", (use) => {
  it("fills availableModels with includeModels=true exactly as GET /models?providerId= lists them", async () => {
    const h = use();
    const openai = await createProvider(h, { credentials: { apiKey: "k" } });
    const read = await h.request("GET", `/providers/${openai.id}?includeModels=true`);
    expect(read.status).toBe(200);
    const models = await h.request("GET", `/models?providerId=${openai.id}`);
    expect(read.body.availableModels).toEqual(models.body.models);
    expect(read.body.availableModels).toContainEqual({
      id: `${openai.id}:gpt-4o`,
      providerId: openai.id,
      provider: "openai",
      model: "gpt-4o",
      enabled: true,
      inputPricePerMillionTokens: 2.5,
      outputPricePerMillionTokens: 10,
    });
    const off = await h.request("GET", `/providers/${openai.id}?includeModels=false`);
    expect(off.body.availableModels).toBeNull();
  });
});
