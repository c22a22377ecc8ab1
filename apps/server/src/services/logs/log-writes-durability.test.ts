/**
 * Durability of acknowledged log writes, end to end: the real server process (src/main.ts) on a database
 * file or schema, several clients writing traces with spans (and adding spans to them) over HTTP, a SIGKILL
 * while they write, a restart on the same database. Every trace that was acknowledged must be there whole
 * (its spans, its aggregates, its indexed attributes and tags), every acknowledged added span too, and no
 * trace may be partial. SQLite always; PostgreSQL when PHAROS_TEST_DATABASE_URL is set.
 */
import { afterAll, describe, expect, it } from "vitest";
import { issueKey } from "../../auth/api-keys.ts";
import { createIdGenerator } from "../../ids.ts";
import { openStore } from "../../store/open-store.ts";
import { postgresUrl } from "../../testing/harness.ts";
import { platformInput, platformOutput, T0 } from "../../testing/log-write-fixtures.ts";
import { freshPostgresSchema, type ServerProcess, startServer, tempDatabaseDir } from "../../testing/processes.ts";

const CLIENTS = 8;
/** Acknowledged traces to wait for before the kill (the clients keep writing until it). */
const ACKNOWLEDGED_BEFORE_KILL = 120;

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

interface Expected {
  /** Spans written with the trace. */
  spans: number;
  /** Spans added later with POST /logs/span and acknowledged. */
  added: string[];
}

/** Trace `i` of client `c`: 1 to 5 Model spans (cost and tokens), attributes and tags. */
function traceRequest(projectId: string, c: number, i: number) {
  const spans = 1 + ((c + i) % 5);
  return {
    projectId,
    trace: {
      name: `c${c}-t${i}-spans${spans}`,
      status: "success",
      startedAt: T0 + i,
      endedAt: T0 + i + 1000,
      referenceId: `c${c}-t${i}`,
      attributes: { client: c, index: i, kind: "durability" },
      tags: ["durability", `client-${c}`],
    },
    spans: Array.from({ length: spans }, (_, s) => ({
      name: `with-trace-${s}`,
      status: "success",
      startedAt: T0 + i + s,
      endedAt: T0 + i + s + 10,
      attributes: { position: s },
      tags: ["with-trace"],
      content: {
        type: "Model",
        provider: "openai",
        model: "gpt-4o-mini",
        input: platformInput,
        output: platformOutput(10 + s, 2),
        cost: 0.5,
      },
    })),
  };
}

const addedSpan = (projectId: string, traceId: string, n: number) => ({
  projectId,
  span: {
    traceId,
    name: `added-${n}`,
    status: "success",
    startedAt: T0 + 5,
    endedAt: T0 + 6,
    content: { type: "Tool", input: "{}", output: "{}" },
  },
});

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const targets = [
  ["sqlite", async () => ({ url: files.url(`durability-${Date.now()}.db`), dispose: async () => {} })],
  ...(postgresUrl ? [["postgres", () => freshPostgresSchema(postgresUrl as string)] as const] : []),
] as const;

describe.each(targets)("acknowledged log writes survive SIGKILL [%s]", (_, open) => {
  it("every acknowledged trace is complete after a restart, and no trace is partial", async () => {
    const database = await open();
    try {
      const key = issueKey(createIdGenerator(Date.now)("apiKey")).key;
      const headers = { Authorization: `Bearer ${key}`, "Content-Type": "application/json" };
      const first = start({ DATABASE_URL: database.url, PHAROS_BOOTSTRAP_API_KEY: key });
      const url = await first.ready();
      const projects = (await (await fetch(`${url}/v2/projects`, { headers })).json()) as {
        projects: { id: string }[];
      };
      const projectId = projects.projects[0]?.id as string;

      const acknowledged = new Map<string, Expected>();
      const bodies = new Map<string, unknown>();
      let killed = false;
      let unexpected: string | undefined;
      const post = async (path: string, body: unknown) => {
        const response = await fetch(`${url}/v2${path}`, { method: "POST", headers, body: JSON.stringify(body) });
        const reply = { status: response.status, body: (await response.json()) as Record<string, any> };
        if (reply.status !== 200) unexpected ??= `${path}: ${reply.status} ${JSON.stringify(reply.body)}`;
        return reply;
      };
      const client = async (c: number) => {
        try {
          for (let i = 0; !killed; i++) {
            const body = traceRequest(projectId, c, i);
            const created = await post("/logs/trace", body);
            if (created.status !== 200) continue;
            const traceId = created.body.traceId as string;
            acknowledged.set(traceId, { spans: body.spans.length, added: [] });
            bodies.set(traceId, body);
            if (i % 3 === 0) {
              const added = await post("/logs/span", addedSpan(projectId, traceId, i));
              if (added.status === 200) acknowledged.get(traceId)?.added.push(added.body.spanId);
            }
          }
        } catch {
          // The server was killed: the request in flight has no answer, so it was not acknowledged.
        }
      };
      const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));

      await waitUntil(() => acknowledged.size >= ACKNOWLEDGED_BEFORE_KILL || unexpected !== undefined, 15_000);
      first.child.kill("SIGKILL");
      killed = true;
      expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });
      await Promise.all(clients);
      expect(unexpected).toBeUndefined();
      expect(acknowledged.size).toBeGreaterThanOrEqual(ACKNOWLEDGED_BEFORE_KILL);

      // Restart on the same database: it starts, and through the API every acknowledged trace exists (a resend
      // of its request is a duplicate referenceId).
      const second = start({ DATABASE_URL: database.url });
      const secondUrl = await second.ready();
      const resent = await Promise.all(
        [...bodies.values()].slice(0, 40).map(async (body) => {
          const response = await fetch(`${secondUrl}/v2/logs/trace`, {
            method: "POST",
            headers,
            body: JSON.stringify(body),
          });
          return response.status;
        }),
      );
      expect(resent).toEqual(Array(resent.length).fill(409));

      const store = openStore(database.url);
      try {
        const traces = await store.db.selectFrom("logTraces").selectAll().where("projectId", "=", projectId).execute();
        const spans = await store.db.selectFrom("logSpans").selectAll().where("projectId", "=", projectId).execute();
        const attributes = await store.db
          .selectFrom("logAttributes")
          .selectAll()
          .where("projectId", "=", projectId)
          .execute();
        const tags = await store.db.selectFrom("logTags").selectAll().where("projectId", "=", projectId).execute();
        const byId = new Map(traces.map((trace) => [trace.id, trace]));
        const spansOf = new Map<string, typeof spans>();
        for (const span of spans) spansOf.set(span.traceId, [...(spansOf.get(span.traceId) ?? []), span]);
        const count = (rows: { ownerId: string }[], ownerId: string) =>
          rows.filter((row) => row.ownerId === ownerId).length;

        // Every acknowledged trace and added span is there.
        for (const [traceId, expected] of acknowledged) {
          const trace = byId.get(traceId);
          expect(trace, traceId).toBeDefined();
          const ids = new Set((spansOf.get(traceId) ?? []).map((span) => span.id));
          for (const spanId of expected.added) expect(ids.has(spanId), spanId).toBe(true);
          const withTrace = (spansOf.get(traceId) ?? []).filter((span) => span.name.startsWith("with-trace"));
          expect(withTrace, traceId).toHaveLength(expected.spans);
        }
        // No trace is partial, acknowledged or not: all the spans of its request, aggregates equal to its
        // spans, the indexed rows of the trace and of each span.
        for (const trace of traces) {
          const own = spansOf.get(trace.id) ?? [];
          const declared = Number(/spans(\d+)$/.exec(trace.name)?.[1]);
          expect(
            own.filter((span) => span.name.startsWith("with-trace")),
            trace.name,
          ).toHaveLength(declared);
          expect(new Set(JSON.parse(trace.spanIds))).toEqual(new Set(own.map((span) => span.id)));
          const models = own.filter((span) => span.contentType === "Model");
          expect(trace.totalCost).toBeCloseTo(models.length * 0.5, 9);
          expect(Number(trace.totalInputTokens)).toBe(models.reduce((sum, span) => sum + Number(span.promptTokens), 0));
          expect(Number(trace.totalOutputTokens)).toBe(models.length * 2);
          expect(count(attributes, trace.id)).toBe(3);
          expect(count(tags, trace.id)).toBe(2);
          for (const span of models) {
            expect(count(attributes, span.id)).toBe(1);
            expect(count(tags, span.id)).toBe(1);
          }
        }
      } finally {
        await store.close();
      }
      expect(await second.stop()).toEqual({ code: 0, signal: null });
    } finally {
      await database.dispose();
    }
  }, 30_000);
});
