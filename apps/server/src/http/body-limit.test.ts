/**
 * The 32 MB body limit over real HTTP, where a body arrives either with a Content-Length (judged by the header)
 * or chunked (counted as it streams).
 */
import { request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import { afterAll, beforeAll, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "../app.ts";
import { describeEachStore } from "../testing/harness.ts";

interface Sent {
  status: number;
  body: { error?: { code: string } };
}

/** POSTs `body` to /v2/projects in 1 MB pieces, chunked unless `declareLength`. */
function post(port: number, key: string, body: string, declareLength: boolean): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        port,
        host: "127.0.0.1",
        method: "POST",
        path: "/v2/projects",
        headers: {
          Authorization: `Bearer ${key}`,
          "Content-Type": "application/json",
          ...(declareLength && { "Content-Length": Buffer.byteLength(body) }),
        },
      },
      (response) => {
        let text = "";
        response.on("data", (chunk) => {
          text += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode as number, body: JSON.parse(text) }));
      },
    );
    // The server may answer and close before the whole body is sent: writing on then fails, the reply stands.
    const afterReply = (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE" && error.code !== "ECONNRESET") reject(error);
    };
    request.on("error", afterReply);
    request.on("socket", (socket) => socket.on("error", afterReply));
    const piece = 1024 * 1024;
    for (let start = 0; start < body.length; start += piece) request.write(body.slice(start, start + piece));
    request.end();
  });
}

describeEachStore("request body limit over HTTP", (use) => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createAdaptorServer({ fetch: use().app.fetch }) as Server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const oversized = JSON.stringify({ title: "big", padding: "x".repeat(MAX_BODY_BYTES) });

  for (const declareLength of [true, false]) {
    const form = declareLength ? "a Content-Length" : "chunked transfer";
    it(`answers 413 PAYLOAD_TOO_LARGE to a body over 32 MB sent with ${form}, and stores nothing`, async () => {
      const h = use();
      const before = (await h.request("GET", "/projects?limit=200")).body.projects.length;

      const reply = await post(port, h.key, oversized, declareLength);

      expect(reply.status).toBe(413);
      expect(reply.body.error).toMatchObject({
        code: "PAYLOAD_TOO_LARGE",
        message: "Request body exceeds the limit of 32 MB (33,554,432 bytes).",
      });
      expect((await h.request("GET", "/projects?limit=200")).body.projects.length).toBe(before);
    });

    it(`accepts a body within the limit sent with ${form}`, async () => {
      const h = use();
      const reply = await post(port, h.key, JSON.stringify({ title: `fits ${form}` }), declareLength);

      expect(reply.status).toBe(201);
    });
  }
});
