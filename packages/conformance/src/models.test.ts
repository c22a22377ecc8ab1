/** Models through the client, every response validated against the spec. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inProcessOnly, itAnswersTheErrorMatrix, itProvokedEveryDocumentedStatus, type Send } from "./cases.ts";
import { newProvider, runTag, type Schemas, unknownId } from "./fixtures.ts";
import { expectError, expectStatus } from "./replies.ts";
import { useTarget } from "./target.ts";

const use = useTarget();
const run = runTag();

/** An OpenAI record with credentials and an Anthropic one without. */
let openai: Schemas["Provider"];
let anthropic: Schemas["Provider"];
beforeAll(async () => {
  const { client } = use();
  openai = await newProvider(client, {
    provider: "openai",
    displayName: `Models OpenAI ${run}`,
    credentials: { apiKey: "sk-conformance" },
  });
  anthropic = await newProvider(client, { provider: "anthropic", displayName: `Models Anthropic ${run}` });
});

/** A loopback OpenAI-compatible server listing two models (reachable only by an in-process Pharos). */
const modelServer = createServer((request, response) => {
  if (request.url !== "/v1/models") {
    response.writeHead(404).end();
    return;
  }
  response.writeHead(200, { "Content-Type": "application/json" });
  response.end(JSON.stringify({ object: "list", data: [{ id: "llama3.1:8b" }, { id: "mistral-small" }] }));
});
afterAll(async () => {
  if (modelServer.listening) await new Promise<void>((resolve) => modelServer.close(() => resolve()));
});

describe("listModels", () => {
  const send: Send = (client, extra) =>
    client.GET("/models", { params: { query: { providerId: openai.id } }, ...extra });

  it("200: lists every record's models by record creation then name, with prices from the table", async () => {
    const reply = await use().client.GET("/models");
    expectStatus(reply, 200);
    const models = reply.data?.models ?? [];
    const ofOpenai = models.filter((m) => m.providerId === openai.id);
    const ofAnthropic = models.filter((m) => m.providerId === anthropic.id);
    expect(models.indexOf(ofOpenai.at(-1) as Schemas["Model"])).toBeLessThan(
      models.indexOf(ofAnthropic[0] as Schemas["Model"]),
    );
    expect(ofOpenai.map((m) => m.model)).toEqual([...ofOpenai.map((m) => m.model)].sort());
    expect(ofOpenai).toContainEqual({
      id: `${openai.id}:gpt-4o`,
      providerId: openai.id,
      provider: "openai",
      model: "gpt-4o",
      enabled: true,
      inputPricePerMillionTokens: 2.5,
      outputPricePerMillionTokens: 10,
    });
    expect(ofAnthropic.length).toBeGreaterThan(0);
    expect(ofAnthropic.every((m) => m.provider === "anthropic" && !m.enabled)).toBe(true);
  });

  it("200: providerId restricts the list to one record", async () => {
    const reply = await send(use().client, {});
    expectStatus(reply, 200);
    expect(reply.data).toEqual({
      models: expect.arrayContaining([expect.objectContaining({ model: "gpt-4o-mini", enabled: true })]),
    });
    expect((reply.data as Schemas["ModelList"]).models.every((m) => m.providerId === openai.id)).toBe(true);
  });

  it("200: an openai-compatible record lists its server's models, without prices", async (ctx) => {
    const t = use();
    inProcessOnly(ctx, t, "a loopback server the target can reach");
    await new Promise<void>((resolve) => modelServer.listen(0, "127.0.0.1", resolve));
    const { port } = modelServer.address() as AddressInfo;
    const local = await newProvider(t.client, {
      provider: "openai-compatible",
      displayName: `Models local ${run}`,
      baseUrl: `http://127.0.0.1:${port}/v1`,
    });
    const reply = await t.client.GET("/models", { params: { query: { providerId: local.id } } });
    expectStatus(reply, 200);
    expect(reply.data?.models).toEqual(
      ["llama3.1:8b", "mistral-small"].map((model) => ({
        id: `${local.id}:${model}`,
        providerId: local.id,
        provider: "openai-compatible",
        model,
        enabled: true,
        inputPricePerMillionTokens: null,
        outputPricePerMillionTokens: null,
      })),
    );
  });

  it("200: a server that cannot be reached contributes no models", async () => {
    const { client } = use();
    const down = await newProvider(client, {
      provider: "openai-compatible",
      displayName: `Models down ${run}`,
      baseUrl: "http://127.0.0.1:9/v1",
    });
    const reply = await client.GET("/models", { params: { query: { providerId: down.id } } });
    expectStatus(reply, 200);
    expect(reply.data).toEqual({ models: [] });
    expectStatus(await client.GET("/models"), 200);
  });

  it("400 VALIDATION_ERROR for a malformed providerId", async () => {
    const reply = await use().client.GET("/models", { params: { query: { providerId: "provider_1" } } });
    expectError(reply, 400, "VALIDATION_ERROR");
  });

  it("404 RESOURCE_NOT_FOUND for an unknown providerId", async () => {
    const reply = await use().client.GET("/models", { params: { query: { providerId: unknownId("provider") } } });
    expectError(reply, 404, "RESOURCE_NOT_FOUND");
  });

  itAnswersTheErrorMatrix(use, { access: "workspace-read", send });
});

itProvokedEveryDocumentedStatus(use, ["listModels"]);
