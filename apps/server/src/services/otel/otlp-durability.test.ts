/**
 * Durability of acknowledged OTLP exports, end to end: the real server process on a database file or schema,
 * exporters sending traces over several requests (children before their root, as batch exporters do), a SIGKILL
 * while they send, a restart on the same database. Every span of an acknowledged request must be there, every
 * trace's aggregates must equal its stored spans (none half-written), and sending an acknowledged request again
 * stores nothing twice. SQLite always; PostgreSQL when PHAROS_TEST_DATABASE_URL is set.
 */
import { afterAll, describe, expect, it } from "vitest";
import { issueKey } from "../../auth/api-keys.ts";
import { createIdGenerator } from "../../ids.ts";
import { openStore } from "../../store/open-store.ts";
import { postgresUrl } from "../../testing/harness.ts";
import { hexId, type JsonSpan, jsonRequest } from "../../testing/otel-fixtures.ts";
import { freshPostgresSchema, type ServerProcess, startServer, tempDatabaseDir } from "../../testing/processes.ts";

const EXPORTERS = 6;
/** Acknowledged export requests to wait for before the kill (the exporters keep sending until it). */
const ACKNOWLEDGED_BEFORE_KILL = 100;
const COST = 0.5;

const files = tempDatabaseDir();
const running = new Set<ServerProcess>();
afterAll(async () => {
  await Promise.all([...running].map((server) => server.stop("SIGKILL").catch(() => {})));
  files.dispose();
});

function start(env: Record<string, string>): ServerProcess {
  const server = startServer(env);
  running.add(server);
  server.exited.then(() => running.delete(server));
  return server;
}

/** Trace `i` of exporter `e`: an agent root and 1 to 4 GenAI chat spans under it, each with usage and a cost. */
function traceSpans(e: number, i: number): { root: JsonSpan; children: JsonSpan[] } {
  const traceId = hexId(16);
  const rootId = hexId(8);
  const children = Array.from({ length: 1 + ((e + i) % 4) }, (_, s) => ({
    traceId,
    spanId: hexId(8),
    parentSpanId: rootId,
    name: `chat-${s}`,
    startMs: 110 + s,
    endMs: 150 + s,
    attributes: {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4o-mini",
      "gen_ai.usage.input_tokens": 10 + s,
      "gen_ai.usage.output_tokens": 2,
      "gen_ai.usage.cost": COST,
    },
  }));
  return { root: { traceId, spanId: rootId, name: `e${e}-t${i}`, attributes: { "exporter.index": e } }, children };
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const targets = [
  ["sqlite", async () => ({ url: files.url(`otlp-durability-${Date.now()}.db`), dispose: async () => {} })],
  ...(postgresUrl ? [["postgres", () => freshPostgresSchema(postgresUrl as string)] as const] : []),
] as const;

describe.each(targets)("acknowledged OTLP exports survive SIGKILL [%s]", (_, open) => {
  it("every span of an acknowledged export is stored after a restart, aggregates whole, resends stored once", async () => {
    const database = await open();
    try {
      const key = issueKey(createIdGenerator(Date.now)("apiKey")).key;
      const headers = { Authorization: `Bearer ${key}` };
      const first = start({ DATABASE_URL: database.url, PHAROS_BOOTSTRAP_API_KEY: key });
      const url = await first.ready();
      const projects = (await (await fetch(`${url}/v2/projects`, { headers })).json()) as {
        projects: { id: string }[];
      };
      const projectId = projects.projects[0]?.id as string;
      const exportHeaders = { ...headers, "Content-Type": "application/json", "x-pharos-project-id": projectId };

      /** The span ids (hex) of every acknowledged request, and the bodies to send again. */
      const acknowledged: string[][] = [];
      const bodies: string[] = [];
      let killed = false;
      let unexpected: string | undefined;
      const send = async (base: string, spans: JsonSpan[]) => {
        const body = JSON.stringify(jsonRequest(spans));
        const response = await fetch(`${base}/v2/otel/v1/traces`, { method: "POST", headers: exportHeaders, body });
        const reply = (await response.json()) as Record<string, unknown>;
        if (response.status !== 200 || reply.partialSuccess) {
          unexpected ??= `${response.status} ${JSON.stringify(reply)}`;
          return;
        }
        acknowledged.push(spans.map((span) => span.spanId));
        bodies.push(body);
      };
      const exporter = async (e: number) => {
        try {
          for (let i = 0; !killed; i++) {
            const { root, children } = traceSpans(e, i);
            // Every other trace arrives in two requests, children first, as a batch exporter splits it.
            if (i % 2 === 0) await send(url, [...children, root]);
            else {
              await send(url, children);
              await send(url, [root]);
            }
          }
        } catch {
          // The server was killed: the request in flight has no answer, so it was not acknowledged.
        }
      };
      const exporters = Array.from({ length: EXPORTERS }, (_, e) => exporter(e));

      await waitUntil(() => acknowledged.length >= ACKNOWLEDGED_BEFORE_KILL || unexpected !== undefined, 15_000);
      first.child.kill("SIGKILL");
      killed = true;
      expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });
      await Promise.all(exporters);
      expect(unexpected).toBeUndefined();

      const second = start({ DATABASE_URL: database.url });
      const secondUrl = await second.ready();
      const store = openStore(database.url);
      try {
        const stored = async () => ({
          traces: await store.db.selectFrom("logTraces").selectAll().where("projectId", "=", projectId).execute(),
          spans: await store.db.selectFrom("logSpans").selectAll().where("projectId", "=", projectId).execute(),
        });
        const before = await stored();
        const spanIds = new Set(before.spans.map((span) => span.referenceId));
        for (const request of acknowledged)
          for (const spanId of request) expect(spanIds.has(spanId), spanId).toBe(true);

        // No trace is half-written: its span list, cost and tokens are those of the spans stored under it.
        const spansOf = new Map<string, typeof before.spans>();
        for (const span of before.spans) spansOf.set(span.traceId, [...(spansOf.get(span.traceId) ?? []), span]);
        for (const trace of before.traces) {
          const own = spansOf.get(trace.id) ?? [];
          expect(new Set(JSON.parse(trace.spanIds)), trace.referenceId ?? "").toEqual(new Set(own.map((s) => s.id)));
          const models = own.filter((span) => span.contentType === "Model");
          expect(trace.totalCost).toBeCloseTo(models.length * COST, 9);
          expect(Number(trace.totalInputTokens)).toBe(models.reduce((sum, span) => sum + Number(span.promptTokens), 0));
        }

        // Exporters retry what they did not see acknowledged, and may resend what was: stored once.
        for (const body of bodies.slice(0, 30)) {
          const response = await fetch(`${secondUrl}/v2/otel/v1/traces`, {
            method: "POST",
            headers: exportHeaders,
            body,
          });
          expect(response.status).toBe(200);
        }
        const after = await stored();
        expect(after.spans).toHaveLength(before.spans.length);
        expect(after.traces).toHaveLength(before.traces.length);
      } finally {
        await store.close();
      }
      expect(await second.stop()).toEqual({ code: 0, signal: null });
    } finally {
      await database.dispose();
    }
  }, 120_000);
});
