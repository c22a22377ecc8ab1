import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, expect, it } from "vitest";
import { describeEachStore, type Harness } from "../../testing/harness.ts";

/** A tiny OpenAI-compatible server on loopback: `GET /v1/models` answers what the test sets. */
async function startModelServer() {
  const received: IncomingHttpHeaders[] = [];
  let answer = (response: ServerResponse) => {
    response.writeHead(200, { "Content-Type": "application/json" });
    response.end(
      JSON.stringify({
        object: "list",
        data: [
          { id: "qwen2.5:7b", object: "model" },
          { id: "llama3.1:8b", object: "model" },
          { id: "llama3.1:8b", object: "model" },
          { id: "", object: "model" },
          { id: 42 },
          { id: "x".repeat(201) },
          null,
        ],
      }),
    );
  };
  const server = createServer((request, response) => {
    if (request.method === "GET" && request.url === "/v1/models") {
      received.push(request.headers);
      answer(response);
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    received,
    answerWith(next: (response: ServerResponse) => void) {
      answer = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A loopback URL nothing listens on: a server's port, once the server is closed. */
async function closedPortUrl() {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}

let counter = 0;

async function createProvider(h: Harness, key: string, body: Record<string, unknown>) {
  const reply = await h.request("POST", "/providers", { key, body: { displayName: `P${++counter}`, ...body } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body as { id: string };
}

const modelNames = (reply: { body: { models: { model: string }[] } }) => reply.body.models.map((m) => m.model);

describeEachStore("listModels", (use) => {
  const servers: { close: () => Promise<void> }[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  it("lists the price table's models per record, by record creation then name, with prices", async () => {
    const h = use();
    const { key } = await h.otherWorkspace();
    expect((await h.request("GET", "/models", { key })).body).toEqual({ models: [] });
    const openai = await createProvider(h, key, { provider: "openai", credentials: { apiKey: "sk-1" } });
    const anthropic = await createProvider(h, key, { provider: "anthropic" });
    const reply = await h.request("GET", "/models", { key });
    expect(reply.status).toBe(200);
    const models = reply.body.models as { providerId: string; model: string; enabled: boolean }[];
    const ofOpenai = models.filter((m) => m.providerId === openai.id);
    const ofAnthropic = models.filter((m) => m.providerId === anthropic.id);
    expect(models).toEqual([...ofOpenai, ...ofAnthropic]);
    expect(ofOpenai.map((m) => m.model)).toEqual([...ofOpenai.map((m) => m.model)].sort());
    expect(ofOpenai.map((m) => m.model)).toEqual(expect.arrayContaining(["gpt-4o", "gpt-4o-mini", "o3-mini"]));
    expect(ofAnthropic.map((m) => m.model)).toEqual(expect.arrayContaining(["claude-sonnet-4-5", "claude-haiku-4-5"]));
    expect(models).toContainEqual({
      id: `${openai.id}:gpt-4o-mini`,
      providerId: openai.id,
      provider: "openai",
      model: "gpt-4o-mini",
      enabled: true,
      inputPricePerMillionTokens: 0.15,
      outputPricePerMillionTokens: 0.6,
    });
    expect(models).toContainEqual({
      id: `${anthropic.id}:claude-opus-4-1`,
      providerId: anthropic.id,
      provider: "anthropic",
      model: "claude-opus-4-1",
      enabled: false,
      inputPricePerMillionTokens: 15,
      outputPricePerMillionTokens: 75,
    });
    expect(ofOpenai.every((m) => m.enabled)).toBe(true);
    expect(ofAnthropic.every((m) => !m.enabled)).toBe(true);

    const only = await h.request("GET", `/models?providerId=${anthropic.id}`, { key });
    expect(only.body.models).toEqual(ofAnthropic);
  });

  it("lists what an openai-compatible server lists, sending its key and headers; no prices, always enabled", async () => {
    const h = use();
    const { key } = await h.otherWorkspace();
    const server = await startModelServer();
    servers.push(server);
    const local = await createProvider(h, key, {
      provider: "openai-compatible",
      baseUrl: server.baseUrl,
      credentials: { apiKey: "local-key", headers: { "X-Team": "evals" } },
    });
    const reply = await h.request("GET", "/models", { key });
    expect(reply.status).toBe(200);
    expect(reply.body.models).toEqual(
      ["llama3.1:8b", "qwen2.5:7b"].map((model) => ({
        id: `${local.id}:${model}`,
        providerId: local.id,
        provider: "openai-compatible",
        model,
        enabled: true,
        inputPricePerMillionTokens: null,
        outputPricePerMillionTokens: null,
      })),
    );
    expect(server.received.at(-1)).toMatchObject({ authorization: "Bearer local-key", "x-team": "evals" });

    const keyless = await createProvider(h, key, { provider: "openai-compatible", baseUrl: `${server.baseUrl}/` });
    const keylessModels = await h.request("GET", `/models?providerId=${keyless.id}`, { key });
    expect(modelNames(keylessModels)).toEqual(["llama3.1:8b", "qwen2.5:7b"]);
    expect(server.received.at(-1)?.authorization).toBeUndefined();
  });

  it("answers 200 without the models of a server that is down or answers something else", async () => {
    const h = use();
    const { key } = await h.otherWorkspace();
    const down = await createProvider(h, key, { provider: "openai-compatible", baseUrl: await closedPortUrl() });
    const openai = await createProvider(h, key, { provider: "openai" });
    const closed = await h.request("GET", "/models", { key });
    expect(closed.status).toBe(200);
    expect(closed.body.models.length).toBeGreaterThan(0);
    expect(closed.body.models.every((m: { providerId: string }) => m.providerId === openai.id)).toBe(true);
    expect((await h.request("GET", `/models?providerId=${down.id}`, { key })).body).toEqual({ models: [] });
    const withModels = await h.request("GET", `/providers/${down.id}?includeModels=true`, { key });
    expect(withModels.status).toBe(200);
    expect(withModels.body.availableModels).toEqual([]);

    const server = await startModelServer();
    servers.push(server);
    const odd = await createProvider(h, key, { provider: "openai-compatible", baseUrl: server.baseUrl });
    const answers: ((response: ServerResponse) => void)[] = [
      (response) => response.writeHead(500).end('{"error":"boom"}'),
      (response) => response.writeHead(200, { "Content-Type": "application/json" }).end("{not json"),
      (response) => response.writeHead(200, { "Content-Type": "application/json" }).end('{"models":["a"]}'),
      (response) => response.writeHead(200, { "Content-Type": "application/json" }).end("null"),
    ];
    for (const answer of answers) {
      server.answerWith(answer);
      const reply = await h.request("GET", `/models?providerId=${odd.id}`, { key });
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ models: [] });
    }
  });

  it("answers 200 without the models of a record whose stored credentials cannot be sent or opened", async () => {
    const h = use();
    const { key } = await h.otherWorkspace();
    const server = await startModelServer();
    servers.push(server);
    const unsendable = await createProvider(h, key, { provider: "openai-compatible", baseUrl: server.baseUrl });
    const unopenable = await createProvider(h, key, { provider: "openai-compatible", baseUrl: server.baseUrl });
    const openai = await createProvider(h, key, { provider: "openai" });
    // As versions that did not check credentials stored them, and as a record sealed with another key reads.
    await h.store.db
      .updateTable("providers")
      .set({ credentials: h.secrets.seal(JSON.stringify({ apiKey: "line\nbreak", headers: { "X-Team": "€" } })) })
      .where("id", "=", unsendable.id)
      .execute();
    await h.store.db
      .updateTable("providers")
      .set({ credentials: "not sealed with this server's key" })
      .where("id", "=", unopenable.id)
      .execute();

    const all = await h.request("GET", "/models", { key });
    expect(all.status).toBe(200);
    expect(all.body.models.every((m: { providerId: string }) => m.providerId === openai.id)).toBe(true);
    for (const id of [unsendable.id, unopenable.id]) {
      const one = await h.request("GET", `/providers/${id}?includeModels=true`, { key });
      expect(one.status).toBe(200);
      expect(one.body.availableModels).toEqual([]);
    }
  });
});
