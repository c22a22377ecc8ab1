/**
 * Seeds a project with log data for the search benchmark: `spans` spans in traces of 5, spread over 30 days,
 * written straight through the store (Kysely) in big transactions — far faster than the HTTP API, with the
 * rows the write path stores: the trace aggregates, the content as compact JSON, the indexed
 * `logAttributes` / `logTags` rows of every trace and span, and the metrics rollups.
 *
 * The data is regular, so that the benchmark's searches have known selectivity:
 * - trace names cycle support-chat / checkout-flow / sales-chat ("chat" matches 2 in 3);
 * - span names cycle classify / llm-call / lookup_order / retrieve-docs / llm-answer ("llm" matches 2 in 5);
 * - attribute `user.plan` alternates free / pro, independently of the names ("pro" matches 1 in 2);
 * - times run evenly over [from, from + 30 days); span latencies spread over 100 ms – 3 s;
 * - Model spans alternate gpt-4o-mini (openai) / claude-3-5-haiku (anthropic), one in two traces each.
 *
 * Standalone: `pnpm --filter @pharos/bench exec tsx seed.ts <DATABASE_URL> <projectId> [spans]`
 * (the project must exist: create it through the API first).
 */
import { openStore, type Store } from "@pharos/server";
import { type CompiledQuery, type Kysely, sql } from "kysely";
import {
  addToSpanRollups,
  addToTraceDimensionRollups,
  addToTraceRollups,
  audienceRollupRows,
  audienceSpans,
  spanRollupRows,
  traceDimensionRollupRows,
  traceRollupRows,
} from "../../apps/server/src/services/metrics/rollups.ts";
import type { Database } from "../../apps/server/src/store/schema.ts";
import { idMaker } from "./ids.ts";

export const SEED_DAYS = 30;
const DAY = 86_400_000;
const TRACE_NAMES = ["support-chat", "checkout-flow", "sales-chat"];
const SPAN_NAMES = ["classify", "llm-call", "lookup_order", "retrieve-docs", "llm-answer"];
const PLANS = ["free", "pro"];

type Trace = Database["logTraces"];
type Span = Database["logSpans"];
type Attribute = Database["logAttributes"];
type Tag = Database["logTags"];

export interface SeedOptions {
  projectId: string;
  spans: number;
  /** Start of the 30-day window (Unix ms); default: 30 days and one hour before now. */
  from?: number;
  /** Traces per transaction. */
  tracesPerTransaction?: number;
  onProgress?: (spansWritten: number) => void;
}

export interface SeedResult {
  traces: number;
  spans: number;
  from: number;
  to: number;
  seconds: number;
}

function spanContent(kind: number, i: number) {
  switch (kind) {
    case 1:
    case 4: {
      const promptTokens = 120 + (i % 50);
      const completionTokens = 40 + (i % 30);
      const content = {
        type: "Model",
        provider: i % 2 === 0 ? "openai" : "anthropic",
        model: i % 2 === 0 ? "gpt-4o-mini" : "claude-3-5-haiku",
        input: JSON.stringify({
          messages: [{ role: "user", content: [{ modality: "text", value: `Where is my order ${i}?` }] }],
        }),
        output: JSON.stringify({
          messages: [{ role: "assistant", content: [{ modality: "text", value: "It ships tomorrow." }] }],
          tokenUsage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens },
        }),
        cost: 0.0001 + (i % 7) * 0.00001,
      };
      return { content, promptTokens, completionTokens };
    }
    case 0:
      return { content: { type: "Function", input: `{"text":"order ${i}"}`, output: '{"intent":"order_status"}' } };
    case 2:
      return { content: { type: "Tool", input: `{"orderId":"${i}"}`, output: '{"status":"shipped"}' } };
    default:
      return { content: { type: "Retrieval", input: `{"query":"order ${i}"}`, output: '{"documents":3}' } };
  }
}

function attributeRows(
  base: Pick<Attribute, "projectId" | "ownerKind" | "ownerId" | "startedAt">,
  attributes: Record<string, string | number | boolean>,
): Attribute[] {
  return Object.entries(attributes).map(([key, value]) => ({
    ...base,
    key,
    textValue: typeof value === "string" ? value : null,
    numberValue: typeof value === "number" ? value : null,
    booleanValue: typeof value === "boolean" ? (value ? 1 : 0) : null,
  }));
}

type Row = Record<string, string | number | null>;

/**
 * Bulk inserts. SQLite: multi-row inserts under its limit of bound parameters, the SQL compiled once per
 * batch size. PostgreSQL: one `insert … select * from unnest($1::text[], $2::bigint[], …)` per batch, one
 * array parameter per column, typed from the table's catalog (so a column added by a migration is typed too).
 */
function bulkInserter(store: Store) {
  const compiled = new Map<string, CompiledQuery>();
  const pgTypes = new Map<string, Map<string, string>>();

  async function columnTypes(db: Kysely<Database>, table: string): Promise<Map<string, string>> {
    let types = pgTypes.get(table);
    if (!types) {
      const { rows } = await sql<{ column: string; type: string }>`
        select a.attname as "column", format_type(a.atttypid, a.atttypmod) as "type"
        from pg_attribute a where a.attrelid = ${`"${table}"`}::regclass and a.attnum > 0 and not a.attisdropped
      `.execute(db);
      types = new Map(rows.map((row) => [row.column, row.type]));
      pgTypes.set(table, types);
    }
    return types;
  }

  return async function insertAll(db: Kysely<Database>, table: keyof Database, rows: Row[]): Promise<void> {
    if (rows.length === 0) return;
    const columns = Object.keys(rows[0] as Row);
    if (store.dialect === "postgres") {
      const types = await columnTypes(db, table);
      for (let start = 0; start < rows.length; start += 50_000) {
        const batch = rows.slice(start, start + 50_000);
        const arrays = columns.map(
          (column) => sql`${batch.map((row) => row[column] ?? null)}::${sql.raw(types.get(column) ?? "text")}[]`,
        );
        await sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c)))})
          select * from unnest(${sql.join(arrays)})`.execute(db);
      }
      return;
    }
    const perInsert = Math.max(1, Math.floor(30_000 / columns.length));
    for (let start = 0; start < rows.length; start += perInsert) {
      const batch = rows.slice(start, start + perInsert);
      const key = `${table}:${batch.length}`;
      let query = compiled.get(key);
      if (!query) {
        query = db
          .insertInto(table)
          .values(batch as never)
          .compile();
        compiled.set(key, query);
      }
      await db.executeQuery({ ...query, parameters: batch.flatMap((row) => columns.map((column) => row[column])) });
    }
  };
}

export async function seedSpans(store: Store, options: SeedOptions): Promise<SeedResult> {
  const started = performance.now();
  const project = await store.db
    .selectFrom("projects")
    .select(["id", "workspaceId"])
    .where("id", "=", options.projectId)
    .executeTakeFirst();
  if (!project) throw new Error(`no project ${options.projectId} in this database`);
  const { workspaceId, id: projectId } = project;

  const traceCount = Math.ceil(options.spans / 5);
  const from = options.from ?? Date.now() - SEED_DAYS * DAY - 3_600_000;
  const step = (SEED_DAYS * DAY) / traceCount;
  const newId = idMaker();
  const insertAll = bulkInserter(store);
  const perTransaction = options.tracesPerTransaction ?? 10_000;
  let spansWritten = 0;

  for (let first = 0; first < traceCount; first += perTransaction) {
    const traces: Trace[] = [];
    const spans: Span[] = [];
    const attributes: Attribute[] = [];
    const tags: Tag[] = [];
    for (let i = first; i < Math.min(traceCount, first + perTransaction); i++) {
      const startedAt = Math.floor(from + i * step);
      const traceId = newId("trace", startedAt);
      const plan = PLANS[Math.floor(i / 3) % 2] as string;
      const spanTotal = Math.min(5, options.spans - i * 5);
      const spanIds: string[] = [];
      let totalCost = 0;
      let totalInputTokens = 0;
      let totalOutputTokens = 0;
      const tag = i % 10 === 0 ? "staging" : "production";

      for (let k = 0; k < spanTotal; k++) {
        const spanStart = startedAt + 10 + k * 350;
        // Latencies spread over 100 ms – 3 s, so that the metrics rollups' histograms hold many buckets.
        const latency = 100 + ((i * 7_919 + k * 104_729) % 2_900);
        const spanId = newId("span", spanStart);
        spanIds.push(spanId);
        const { content, promptTokens, completionTokens } = spanContent(k, i);
        const model = content.type === "Model" ? (content as { model: string; provider: string }) : undefined;
        const cost = model ? (content as { cost: number }).cost : null;
        totalCost += cost ?? 0;
        totalInputTokens += promptTokens ?? 0;
        totalOutputTokens += completionTokens ?? 0;
        const spanAttributes = { "user.plan": plan, attempt: k + 1, cached: k % 2 === 0 };
        spans.push({
          id: spanId,
          workspaceId,
          projectId,
          traceId,
          name: SPAN_NAMES[k] as string,
          status: i % 50 === 0 && k === 4 ? "failure" : "success",
          contentType: content.type,
          startedAt: spanStart,
          endedAt: spanStart + latency,
          latency,
          promptId: null,
          deploymentId: null,
          referenceId: null,
          parentReferenceId: null,
          sessionId: `sess-${i % 5_000}`,
          runEvaluation: 0,
          model: model?.model ?? null,
          provider: model?.provider ?? null,
          cost,
          promptTokens: promptTokens ?? null,
          completionTokens: completionTokens ?? null,
          totalTokens: promptTokens === undefined ? null : promptTokens + (completionTokens ?? 0),
          content: JSON.stringify(content),
          attributes: JSON.stringify(spanAttributes),
          tags: JSON.stringify([tag]),
          events: "[]",
          createdAt: spanStart + latency,
          updatedAt: spanStart + latency,
          originId: null,
        });
        attributes.push(
          ...attributeRows({ projectId, ownerKind: "span", ownerId: spanId, startedAt: spanStart }, spanAttributes),
        );
        tags.push({ projectId, ownerKind: "span", ownerId: spanId, tag, startedAt: spanStart });
      }

      const traceAttributes = { "user.plan": plan, region: i % 2 === 0 ? "eu-west-1" : "us-east-1", retries: i % 4 };
      traces.push({
        id: traceId,
        workspaceId,
        projectId,
        name: TRACE_NAMES[i % 3] as string,
        status: i % 50 === 0 ? "failure" : "success",
        startedAt,
        endedAt: startedAt + 2_000,
        latency: 2_000,
        referenceId: `seed-${i}`,
        sessionId: `sess-${i % 5_000}`,
        userId: `user-${i % 1_000}`,
        attributes: JSON.stringify(traceAttributes),
        tags: JSON.stringify([tag]),
        spanIds: JSON.stringify(spanIds),
        totalCost,
        totalInputTokens,
        totalOutputTokens,
        createdAt: startedAt + 2_000,
        updatedAt: startedAt + 2_000,
      });
      attributes.push(
        ...attributeRows({ projectId, ownerKind: "trace", ownerId: traceId, startedAt }, traceAttributes),
      );
      tags.push({ projectId, ownerKind: "trace", ownerId: traceId, tag, startedAt });
    }

    await store.db.transaction().execute(async (trx) => {
      await insertAll(trx, "logTraces", traces);
      await insertAll(trx, "logSpans", spans);
      await insertAll(trx, "logAttributes", attributes);
      await insertAll(trx, "logTags", tags);
      // The metrics rollups, as the write path keeps them (in the rows' transaction).
      const audiences = new Map(
        traces.map((trace) => [trace.id, { ...trace, tags: JSON.parse(trace.tags) as string[] }]),
      );
      const audience = audienceRollupRows(
        spans.map((span) => ({ spans: audienceSpans([span]), audience: audiences.get(span.traceId) as never })),
      );
      await addToSpanRollups(trx, spanRollupRows(spans), { audience });
      await addToTraceRollups(trx, traceRollupRows(traces));
      await addToTraceDimensionRollups(trx, traceDimensionRollupRows([...audiences.values()]));
    });
    spansWritten += spans.length;
    options.onProgress?.(spansWritten);
  }

  return {
    traces: traceCount,
    spans: spansWritten,
    from,
    to: from + SEED_DAYS * DAY,
    seconds: (performance.now() - started) / 1000,
  };
}

// Standalone use.
if (import.meta.url === `file://${process.argv[1]}`) {
  const [databaseUrl, projectId, spans = "1000000"] = process.argv.slice(2);
  if (!databaseUrl || !projectId) {
    process.stderr.write("usage: seed.ts <DATABASE_URL> <projectId> [spans]\n");
    process.exit(2);
  }
  const store = openStore(databaseUrl);
  await store.migrate();
  const result = await seedSpans(store, {
    projectId,
    spans: Number(spans),
    onProgress: (n) => process.stderr.write(`\r${n} spans`),
  });
  await store.close();
  process.stdout.write(`\n${JSON.stringify(result)}\n`);
}
