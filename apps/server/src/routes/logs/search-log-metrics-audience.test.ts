/**
 * searchLogMetrics by the trace-side dimensions `userId`, `sessionId` and `tag` (ADR 0017, migration 0023): a span
 * counts under its trace's user and session and each tag of its own and its trace's; a trace under its own. The
 * rollups must equal sums over the raw rows after every kind of write, including those that change a trace's
 * tags (PATCH /logs/trace) or user and session (an OTLP span naming them after the trace's first spans).
 */
import { describe, expect, it } from "vitest";
import { backfillAudienceRollups } from "../../store/migrations/0023-audience-rollups.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import { type Body, createTrace, newProject, patchTrace, postSpan, T0 } from "../../testing/log-write-fixtures.ts";
import { hexId, jsonRequest, sendOtlp } from "../../testing/otel-fixtures.ts";
import { seededRandom } from "../../testing/seeded-random.ts";

const HOUR = 3_600_000;
const QUANTILES = { latencyP50: 0.5, latencyP90: 0.9, latencyP95: 0.95, latencyP99: 0.99 } as const;
const ALL_SPAN_METRICS = [
  "spanCount",
  "errorRate",
  "cost",
  "inputTokens",
  "outputTokens",
  ...Object.keys(QUANTILES),
] as const;
const USERS = ["ana", "bo", "cy"];
const SESSIONS = ["s1", "s2"];
const TRACE_TAGS = ["prod", "beta", "exp"];
const SPAN_TAGS = ["beta", "cached"];

const query = (h: Harness, body: Body) => h.request("POST", "/logs/metrics", { body });

async function metrics(h: Harness, body: Body) {
  const reply = await query(h, body);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body;
}

/** A native span: a Model span with tokens and cost, or a tool step; random own tags. */
function randomSpan(r: ReturnType<typeof seededRandom>, startedAt: number): Body {
  const begin = startedAt + r.int(5_000);
  const latency = 1 + Math.floor(10 ** (r.next() * 4.5));
  const status = r.pick(["success", "success", "failure"]);
  const tags = r.some(SPAN_TAGS);
  const common = { status, startedAt: begin, endedAt: begin + latency, ...(tags.length > 0 && { tags }) };
  if (r.next() < 0.6) {
    const input = r.int(500);
    const output = r.int(300);
    return {
      ...common,
      name: "llm",
      content: {
        type: "Model",
        provider: "openai",
        model: r.pick(["gpt-4o", "gpt-4o-mini"]),
        input: '{"messages":[]}',
        output: JSON.stringify({
          messages: [],
          tokenUsage: { promptTokens: input, completionTokens: output, totalTokens: input + output },
        }),
        cost: r.int(10_000) / 1_000,
      },
    };
  }
  return { ...common, name: "step", content: { type: "Tool", input: "{}", output: "{}" } };
}

/**
 * Random traces over three hours: native ones (with or without user, session and tags; a span added later to
 * some; tags changed by PATCH after their spans were counted on some) and OTLP ones whose user and session come
 * on the root span, sent after its children were counted.
 */
async function randomLogs(h: Harness, projectId: string, seed: number): Promise<void> {
  const r = seededRandom(seed);
  for (let index = 0; index < 16; index += 1) {
    const startedAt = T0 + r.int(3 * HOUR);
    if (r.next() < 0.25) {
      const traceId = hexId(16);
      const root = hexId(8);
      const offset = startedAt - T0;
      const send = async (span: Body) => {
        const body = JSON.stringify(jsonRequest([{ traceId, ...span } as never]));
        const reply = await sendOtlp(h, { body, projectId });
        expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      };
      for (let child = 0; child < 1 + r.int(3); child += 1) {
        const begin = offset + r.int(5_000);
        await send({
          spanId: hexId(8),
          parentSpanId: root,
          name: "tool",
          startMs: begin,
          endMs: begin + 1 + r.int(3_000),
        });
      }
      const attributes = {
        ...(r.next() < 0.8 && { "user.id": r.pick(USERS) }),
        ...(r.next() < 0.6 && { "session.id": r.pick(SESSIONS) }),
      };
      await send({ spanId: root, name: "agent", startMs: offset, endMs: offset + 9_000, attributes });
      continue;
    }
    const userId = r.next() < 0.7 ? r.pick(USERS) : undefined;
    const sessionId = r.next() < 0.6 ? r.pick(SESSIONS) : undefined;
    const tags = r.some(TRACE_TAGS);
    const { traceId } = await createTrace(h, {
      projectId,
      trace: {
        name: "chat",
        status: "success",
        startedAt,
        ...(userId && { userId }),
        ...(sessionId && { sessionId }),
        ...(tags.length > 0 && { tags }),
      },
      spans: Array.from({ length: 1 + r.int(4) }, () => randomSpan(r, startedAt)),
    });
    if (r.next() < 0.5) {
      const reply = await postSpan(h, { projectId, span: { ...randomSpan(r, startedAt), traceId } });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    }
    if (r.next() < 0.5) {
      const operations = Array.from({ length: 1 + r.int(3) }, () => ({
        operation: r.pick(["create", "delete"]),
        tag: r.pick(TRACE_TAGS),
      }));
      const reply = await patchTrace(h, { projectId, traceId, logTrace: { tags: operations } });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    }
  }
}

interface RawSpan {
  startedAt: number;
  status: string;
  latency: number;
  cost: number | null;
  promptTokens: number | null;
  completionTokens: number | null;
  userId: string | null;
  sessionId: string | null;
  /** Its own tags and its trace's, each once. */
  tags: string[];
}

/** The project's spans as stored now, with their traces' user, session and tags. */
async function rawSpans(h: Harness, projectId: string): Promise<RawSpan[]> {
  const rows = await h.store.db
    .selectFrom("logSpans")
    .innerJoin("logTraces", "logTraces.id", "logSpans.traceId")
    .select([
      "logSpans.startedAt",
      "logSpans.status",
      "logSpans.latency",
      "logSpans.cost",
      "logSpans.promptTokens",
      "logSpans.completionTokens",
      "logSpans.tags",
      "logTraces.userId",
      "logTraces.sessionId",
      "logTraces.tags as traceTags",
    ])
    .where("logSpans.projectId", "=", projectId)
    .execute();
  return rows.map((row) => ({
    ...row,
    startedAt: Number(row.startedAt),
    tags: [...new Set([...JSON.parse(row.tags), ...JSON.parse(row.traceTags)])],
  }));
}

async function rawTraces(h: Harness, projectId: string) {
  const rows = await h.store.db
    .selectFrom("logTraces")
    .select(["startedAt", "userId", "sessionId", "tags"])
    .where("projectId", "=", projectId)
    .execute();
  return rows.map((row) => ({ ...row, startedAt: Number(row.startedAt), tags: JSON.parse(row.tags) as string[] }));
}

/** `values` equal the raw spans' measures: sums exactly (cost to float rounding), percentiles within 2 %. */
function expectMeasures(values: Body, spans: readonly RawSpan[], what: string): void {
  expect(values.spanCount, what).toBe(spans.length);
  expect(values.errorRate, what).toBeCloseTo(
    spans.filter((span) => span.status === "failure").length / spans.length,
    12,
  );
  expect(values.cost, what).toBeCloseTo(
    spans.reduce((sum, span) => sum + (span.cost ?? 0), 0),
    9,
  );
  expect(values.inputTokens, what).toBe(spans.reduce((sum, span) => sum + (span.promptTokens ?? 0), 0));
  expect(values.outputTokens, what).toBe(spans.reduce((sum, span) => sum + (span.completionTokens ?? 0), 0));
  const latencies = spans.map((span) => span.latency).sort((a, b) => a - b);
  for (const [name, q] of Object.entries(QUANTILES)) {
    const exact = latencies[Math.max(1, Math.ceil(q * latencies.length)) - 1] as number;
    expect(Math.abs(values[name] - exact), `${what} ${name}: ${values[name]} vs ${exact}`).toBeLessThanOrEqual(
      0.02 * exact + 1e-9,
    );
  }
}

/** Items grouped under each of their keys (an item with several tags is in several groups). */
function groupsOf<T>(items: readonly T[], keysOf: (item: T) => (string | null)[]): Map<string | null, T[]> {
  const groups = new Map<string | null, T[]>();
  for (const item of items) {
    for (const key of keysOf(item)) groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  return groups;
}

const DIMENSIONS = {
  userId: (item: { userId: string | null }) => [item.userId],
  sessionId: (item: { sessionId: string | null }) => [item.sessionId],
  tag: (item: { tags: string[] }) => (item.tags.length === 0 ? [null] : item.tags),
} as const;

/** Costs rounded: sums of the same costs added in another order differ in the last bits. */
const rounded = (answer: Body) =>
  JSON.parse(
    JSON.stringify(answer, (key, value) => (key === "cost" && typeof value === "number" ? value.toFixed(9) : value)),
  );

describeEachStore("searchLogMetrics by user, session and tag", (use) => {
  for (const seed of [1, 2]) {
    it(`equals the raw rows after creates, added spans, tag changes and late OTLP users; migration 0023 rebuilds the same (seed ${seed})`, async () => {
      const h = use();
      const projectId = await newProject(h);
      await randomLogs(h, projectId, seed);
      const spans = await rawSpans(h, projectId);
      const traces = await rawTraces(h, projectId);
      expect(spans.some((span) => span.userId !== null)).toBe(true);
      const window = { projectId, from: T0, to: T0 + 4 * HOUR, bucket: "hour", metrics: ALL_SPAN_METRICS };
      const answers: [Body, Body][] = [];
      const ask = async (body: Body) => {
        const answer = await metrics(h, body);
        answers.push([body, answer]);
        return answer;
      };

      for (const [dimension, keysOf] of Object.entries(DIMENSIONS)) {
        // Span measures per group, in hour and day buckets, with each hour's point.
        for (const bucket of ["hour", "day"]) {
          const answer = await ask({ ...window, bucket, groupBy: [dimension] });
          const groups = groupsOf(spans, keysOf as (span: RawSpan) => (string | null)[]);
          expect(answer.groups.map((group: Body) => group.key[dimension]).sort()).toEqual([...groups.keys()].sort());
          for (const group of answer.groups) {
            const members = groups.get(group.key[dimension]) ?? [];
            expectMeasures(group.totals, members, `${dimension} ${group.key[dimension]}`);
            if (bucket !== "hour") continue;
            for (const point of group.series) {
              const inHour = members.filter((span) => Math.floor(span.startedAt / HOUR) * HOUR === point.start);
              expectMeasures(point.values, inHour, `${dimension} ${group.key[dimension]} at ${point.start}`);
            }
          }
        }
        // Trace counts per group.
        const counted = await ask({ ...window, metrics: ["traceCount"], groupBy: [dimension] });
        const traceGroups = groupsOf(traces, keysOf as (trace: (typeof traces)[number]) => (string | null)[]);
        expect(
          Object.fromEntries(counted.groups.map((group: Body) => [group.key[dimension], group.totals.traceCount])),
        ).toEqual(Object.fromEntries([...traceGroups].map(([key, members]) => [key, members.length])));
      }

      // Flat fields and filters: one user, every user but one, a session list, a tag.
      const ana = await ask({ ...window, userId: "ana" });
      const ofAna = spans.filter((span) => span.userId === "ana");
      if (ofAna.length === 0) expect(ana.groups).toEqual([]);
      else expectMeasures(ana.groups[0].totals, ofAna, "userId ana");
      const notAna = await ask({ ...window, filters: [{ column: "userId", operator: "not-equals", value: "ana" }] });
      expectMeasures(
        notAna.groups[0].totals,
        spans.filter((span) => span.userId !== "ana"),
        "userId not ana",
      );
      const sessions = await ask({
        ...window,
        metrics: ["traceCount"],
        groupBy: ["sessionId"],
        filters: [{ column: "sessionId", operator: "in", value: ["s1", "s2"] }],
      });
      for (const group of sessions.groups) {
        expect(group.key.sessionId).not.toBeNull();
        expect(group.totals.traceCount).toBe(traces.filter((trace) => trace.sessionId === group.key.sessionId).length);
      }
      const beta = await ask({ ...window, bucket: "day", tag: "beta", groupBy: ["tag"] });
      const withBeta = spans.filter((span) => span.tags.includes("beta"));
      expect(beta.groups.map((group: Body) => group.key)).toEqual(withBeta.length > 0 ? [{ tag: "beta" }] : []);
      if (withBeta.length > 0) expectMeasures(beta.groups[0].totals, withBeta, "tag beta");
      const betaTraces = await ask({ ...window, metrics: ["traceCount"], tag: "beta" });
      const tracesWithBeta = traces.filter((trace) => trace.tags.includes("beta")).length;
      expect(betaTraces.groups.map((group: Body) => group.totals.traceCount)).toEqual(
        tracesWithBeta > 0 ? [tracesWithBeta] : [],
      );

      // Logs stored before migration 0023: its backfill (paged, from the raw rows) gives the same answers.
      await h.store.db
        .deleteFrom("logSpanDimensionRollups")
        .where("dimension", "in", ["userId", "sessionId", "tag"])
        .execute();
      await h.store.db.deleteFrom("logTraceDimensionRollups").execute();
      expect((await metrics(h, { ...window, userId: "ana" })).groups).toEqual([]);
      await backfillAudienceRollups(h.store.db);
      for (const [body, answer] of answers) expect(rounded(await metrics(h, body))).toEqual(rounded(answer));
    });
  }

  it("moves counted spans and traces when PATCH changes the trace's tags and when an OTLP span brings the user", async () => {
    const h = use();
    const projectId = await newProject(h);
    const step = (startedAt: number, latency: number, tags?: string[]) => ({
      name: "step",
      status: "success",
      startedAt,
      endedAt: startedAt + latency,
      ...(tags && { tags }),
      content: { type: "Tool", input: "{}", output: "{}" },
    });
    const { traceId } = await createTrace(h, {
      projectId,
      trace: { name: "t", status: "success", startedAt: T0, tags: ["a"] },
      spans: [step(T0, 10), step(T0 + 10, 1_000, ["b"])],
    });
    const window = { projectId, from: T0, to: T0 + HOUR, bucket: "hour", metrics: ["spanCount", "latencyP99"] };
    const byTag = async () =>
      Object.fromEntries(
        (await metrics(h, { ...window, groupBy: ["tag"] })).groups.map((group: Body) => [
          group.key.tag,
          // p99 within 2 %: of 10 ms or of 1 s.
          [group.totals.spanCount, group.totals.latencyP99 > 100 ? "1s" : "10ms"],
        ]),
      );
    expect(await byTag()).toEqual({ a: [2, "1s"], b: [1, "1s"] });
    // "a" goes, "b" comes to the trace: the span with its own "b" stays counted once there.
    const patched = await patchTrace(h, {
      projectId,
      traceId,
      logTrace: {
        tags: [
          { operation: "delete", tag: "a" },
          { operation: "create", tag: "b" },
        ],
      },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(await byTag()).toEqual({ b: [2, "1s"] });
    await patchTrace(h, { projectId, traceId, logTrace: { tags: [{ operation: "delete", tag: "b" }] } });
    // The first span has no tag left (its 10 ms is all the null group holds: the moved histogram is exact).
    expect(await byTag()).toEqual({ null: [1, "10ms"], b: [1, "1s"] });
    const traceTags = await metrics(h, { ...window, metrics: ["traceCount"], groupBy: ["tag"] });
    expect(traceTags.groups.map((group: Body) => [group.key, group.totals.traceCount])).toEqual([[{ tag: null }, 1]]);

    // OTLP: two children counted under no user, then the root names the user and session.
    const otlpTrace = hexId(16);
    const root = hexId(8);
    const send = async (span: Body) => {
      const body = JSON.stringify(jsonRequest([{ traceId: otlpTrace, ...span } as never]));
      expect((await sendOtlp(h, { body, projectId })).status).toBe(200);
    };
    await send({ spanId: hexId(8), parentSpanId: root, name: "c1", startMs: 100, endMs: 200 });
    await send({ spanId: hexId(8), parentSpanId: root, name: "c2", startMs: 300, endMs: 400 });
    const byUser = async (metric: string) =>
      Object.fromEntries(
        (await metrics(h, { ...window, metrics: [metric], groupBy: ["userId"] })).groups.map((group: Body) => [
          group.key.userId,
          group.totals[metric],
        ]),
      );
    expect(await byUser("spanCount")).toEqual({ null: 4 });
    expect(await byUser("traceCount")).toEqual({ null: 2 });
    await send({
      spanId: root,
      name: "agent",
      startMs: 0,
      endMs: 900,
      attributes: { "user.id": "u-7", "session.id": "s-9" },
    });
    expect(await byUser("spanCount")).toEqual({ null: 2, "u-7": 3 });
    expect(await byUser("traceCount")).toEqual({ null: 1, "u-7": 1 });
    const session = await metrics(h, { ...window, metrics: ["spanCount"], sessionId: "s-9" });
    expect(session.groups[0].totals).toEqual({ spanCount: 3 });
  });

  it("keeps the 100 largest users and says the answer is truncated", async () => {
    const h = use();
    const projectId = await newProject(h);
    const spans = Array.from({ length: 3 }, (_, index) => ({
      name: "s",
      status: "success",
      startedAt: T0 + index,
      endedAt: T0 + index + 5,
      content: { type: "Tool", input: "{}", output: "{}" },
    }));
    await Promise.all(
      Array.from({ length: 105 }, (_, index) =>
        createTrace(h, {
          projectId,
          trace: { name: "t", status: "success", startedAt: T0, userId: `user-${String(index).padStart(3, "0")}` },
          // user-000 has the most spans: it is first.
          spans: index === 0 ? spans : spans.slice(0, 1),
        }),
      ),
    );
    const answer = await metrics(h, {
      projectId,
      from: T0,
      to: T0 + HOUR,
      bucket: "hour",
      metrics: ["spanCount"],
      groupBy: ["userId"],
    });
    expect(answer.truncated).toBe(true);
    expect(answer.groups).toHaveLength(100);
    expect(answer.groups[0]).toMatchObject({ key: { userId: "user-000" }, totals: { spanCount: 3 } });
    // Ties are ordered by key: the 99 smallest of the users with one span each are kept.
    expect(answer.groups.at(-1)).toMatchObject({ key: { userId: "user-099" }, totals: { spanCount: 1 } });
    const traces = await metrics(h, {
      projectId,
      from: T0,
      to: T0 + HOUR,
      bucket: "day",
      metrics: ["traceCount"],
      groupBy: ["userId"],
      filters: [{ column: "userId", operator: "not-in", value: ["user-000"] }],
    });
    expect(traces.truncated).toBe(true);
    expect(traces.groups.map((group: Body) => group.key.userId)).toEqual(
      Array.from({ length: 100 }, (_, index) => `user-${String(index + 1).padStart(3, "0")}`),
    );
    // 100 users or fewer: not truncated.
    const few = await metrics(h, {
      projectId,
      from: T0,
      to: T0 + HOUR,
      bucket: "hour",
      metrics: ["spanCount"],
      groupBy: ["userId"],
      filters: [
        { column: "userId", operator: "not-in", value: ["user-000", "user-001", "user-002", "user-003", "user-004"] },
      ],
    });
    expect(few.truncated).toBe(false);
    expect(few.groups).toHaveLength(100);
  });

  describe("bad input: 400, nothing answered", () => {
    const base = (h: Harness) => ({
      projectId: h.projectId,
      from: T0,
      to: T0 + HOUR,
      bucket: "hour",
      metrics: ["spanCount"],
    });
    const cases: [string, (h: Harness) => Body, string][] = [
      ["a minute bucket by user", (h) => ({ ...base(h), bucket: "minute", groupBy: ["userId"] }), "bucket"],
      ["a minute bucket for one tag", (h) => ({ ...base(h), bucket: "minute", tag: "x" }), "bucket"],
      ["user and model together", (h) => ({ ...base(h), groupBy: ["userId", "model"] }), "groupBy.1"],
      ["user and session together", (h) => ({ ...base(h), groupBy: ["userId", "sessionId"] }), "groupBy.1"],
      ["a tag with a model", (h) => ({ ...base(h), groupBy: ["tag"], model: "gpt-4o" }), "model"],
      [
        "a session with a content-type filter",
        (h) => ({
          ...base(h),
          sessionId: "s",
          filters: [{ column: "contentType", operator: "equals", value: "Tool" }],
        }),
        "filters.0",
      ],
      [
        "a substring filter on users",
        (h) => ({ ...base(h), filters: [{ column: "userId", operator: "contains", value: "a" }] }),
        "filters.0",
      ],
      [
        "traceCount by user and trace name",
        (h) => ({ ...base(h), metrics: ["traceCount"], groupBy: ["userId", "traceName"] }),
        "groupBy.1",
      ],
      ["three group-bys", (h) => ({ ...base(h), groupBy: ["userId", "sessionId", "tag"] }), "groupBy"],
      ["an unknown group-by", (h) => ({ ...base(h), groupBy: ["tags"] }), "groupBy.0"],
      [
        "score measures for a user",
        (h) => ({ ...base(h), metrics: ["scoreCount"], groupBy: ["scoreName"], userId: "u" }),
        "userId",
      ],
    ];
    for (const [name, body, field] of cases) {
      it(`rejects ${name}`, async () => {
        const h = use();
        const reply = await query(h, body(h));
        expectError(reply, 400, "VALIDATION_ERROR");
        expect(reply.body.error.details.map((detail: Body) => detail.field)).toContain(field);
      });
    }
  });
});
