/**
 * The two ceilings of the benchmark, each a tiny server of its own (not part of the product), on the same Node
 * HTTP adapter as the real server:
 *
 * - `bare` (a): a bare Hono route, GET /bare, returning a small JSON object;
 * - `validate` (v): the product's POST /v2/logs/trace route — the generated route of @pharos/contract, so the
 *   same zod schemas and the same parsing of the ~14 KB body — with validation only: no authentication, no
 *   storage; it answers 200 with fresh ids as the real route does.
 *
 * Usage: `node --import tsx ceiling-server.ts bare|validate` with PORT (0 picks a free port); prints one JSON
 * line `{"port": N}` on stdout when listening, and exits on SIGTERM. Each mode loads only what it needs.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import { Hono } from "hono";

async function bareApp(): Promise<Hono> {
  const app = new Hono();
  app.get("/bare", (c) => c.json({ ok: true, service: "pharos-bench" }));
  return app;
}

async function validateApp(): Promise<Hono> {
  const { OpenAPIHono } = await import("@hono/zod-openapi");
  const { operations } = await import("@pharos/contract");
  const { idMaker } = await import("./ids.ts");
  const newId = idMaker();
  const api = new OpenAPIHono({
    defaultHook: (result, c) => {
      if (!result.success) {
        return c.json({ error: { code: "VALIDATION_ERROR", message: "Request validation failed." } }, 400);
      }
    },
  });
  api.openapi(operations.createLogTrace, (c) => {
    const body = c.req.valid("json");
    return c.json({ traceId: newId("trace"), spanIds: (body.spans ?? []).map(() => newId("span")) }, 200);
  });
  const app = new Hono();
  app.route("/v2", api);
  return app;
}

const mode = process.argv[2];
if (mode !== "bare" && mode !== "validate") {
  process.stderr.write("usage: ceiling-server.ts bare|validate\n");
  process.exit(2);
}
const app = mode === "bare" ? await bareApp() : await validateApp();
const server = createAdaptorServer({ fetch: app.fetch, hostname: "127.0.0.1" }) as Server;
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
