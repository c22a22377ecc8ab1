/**
 * Query plans of the HTTP API's searches (testing only): a second app on the harness's database records the
 * SQL it runs, and each recorded query is explained — EXPLAIN QUERY PLAN on SQLite, EXPLAIN on PostgreSQL with
 * `enable_seqscan = off` for that session (with a few hundred rows its planner would rightly prefer a
 * sequential scan; switched off, it still chooses one when no index can serve the query, which is what the
 * tests must catch).
 */
import { CompiledQuery, type KyselyPlugin, sql } from "kysely";
import { expect } from "vitest";
import { createApp } from "../app.ts";
import type { Harness } from "./harness.ts";

/** A second app on the harness's database that records the search queries it runs. */
export async function recordingApp(h: Harness) {
  const recorded: CompiledQuery[] = [];
  const recorder: KyselyPlugin = {
    transformQuery({ node, queryId }) {
      const compiled = h.store.db.getExecutor().compileQuery(node, queryId);
      if (/^select .* from "log(Traces|Spans)"/i.test(compiled.sql)) recorded.push(compiled);
      return node;
    },
    transformResult: async ({ result }) => result,
  };
  const app = await createApp({ store: { ...h.store, db: h.store.db.withPlugin(recorder) }, now: h.now });
  return {
    /** Runs the search and returns the SQL of its page query. */
    async searchQuery(path: string, body: Record<string, unknown>): Promise<CompiledQuery> {
      recorded.length = 0;
      const response = await app.request(`/v2${path}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${h.key}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(response.status, await response.clone().text()).toBe(200);
      expect(recorded).toHaveLength(1);
      return recorded[0] as CompiledQuery;
    },
  };
}

/** The query plan as text, one step per line. */
export async function explain(h: Harness, query: CompiledQuery): Promise<string> {
  if (h.store.dialect === "sqlite") {
    const plan = await h.store.db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
    );
    return plan.rows.map((row) => row.detail).join("\n");
  }
  return h.store.db.connection().execute(async (connection) => {
    await sql`set enable_seqscan = off`.execute(connection);
    try {
      const plan = await connection.executeQuery<{ "QUERY PLAN": string }>(
        CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
      );
      return plan.rows.map((row) => row["QUERY PLAN"]).join("\n");
    } finally {
      await sql`reset enable_seqscan`.execute(connection);
    }
  });
}
