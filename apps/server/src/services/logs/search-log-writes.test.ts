/**
 * Search over rows written through the write operations (POST /logs/trace, POST /logs/span, PATCH
 * /logs/trace): what the writes index (aggregates, attribute and tag rows) is what search finds, and walking
 * every page returns each matching row exactly once while new rows are being written.
 */
import { expect, it } from "vitest";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import { newProject, T0 } from "../../testing/log-search-fixtures.ts";

type Body = Record<string, unknown>;

const modelContent = (cost: number) => ({
  type: "Model",
  provider: "openai",
  model: "gpt-4o-mini",
  input: '{"messages":[]}',
  output: '{"messages":[],"tokenUsage":{"promptTokens":12,"completionTokens":5,"totalTokens":17}}',
  cost,
});

async function writeTrace(h: Harness, projectId: string, trace: Body, spans?: Body[]) {
  const reply = await h.request("POST", "/logs/trace", {
    body: { projectId, trace: { status: "success", ...trace }, ...(spans && { spans }) },
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body as { traceId: string; spanIds: string[] };
}

async function searchIds(h: Harness, path: "/logs/traces" | "/logs/spans", body: Body): Promise<string[]> {
  const reply = await h.request("POST", path, { body: { limit: 200, ...body } });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return (reply.body.traces ?? reply.body.spans).map((row: { id: string }) => row.id);
}

type Row = { id: string; startedAt: number };

/** Every page of one search, in order, with the rows of each page. */
async function walk(h: Harness, path: "/logs/traces" | "/logs/spans", body: Body, afterEachPage?: () => Promise<void>) {
  const rows: Row[] = [];
  let cursor: string | undefined;
  do {
    const reply = await h.request("POST", path, { body: { ...body, ...(cursor && { cursor }) } });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    rows.push(...(reply.body.traces ?? reply.body.spans));
    cursor = reply.body.pagination.nextCursor ?? undefined;
    await afterEachPage?.();
  } while (cursor);
  return rows;
}

/**
 * Strictly ordered by (startedAt, id) in the direction of `sort`: no row twice, none out of place, and so no
 * row that was written behind the walk's position once the walk had passed it.
 */
function expectKeysetOrder(rows: Row[], sort: "startedAt:asc" | "startedAt:desc") {
  const sign = sort === "startedAt:asc" ? 1 : -1;
  for (let i = 1; i < rows.length; i++) {
    const [a, b] = [rows[i - 1] as Row, rows[i] as Row];
    const order = a.startedAt === b.startedAt ? (a.id < b.id ? -1 : 1) : Math.sign(a.startedAt - b.startedAt);
    expect(order * sign, `${a.id}@${a.startedAt} before ${b.id}@${b.startedAt}`).toBe(-1);
  }
}

describeEachStore("log search over written logs", (use) => {
  it("finds what the writes stored: aggregates, attributes, tags, spans added later and trace updates", async () => {
    const h = use();
    const projectId = await newProject(h);
    const { traceId, spanIds } = await writeTrace(
      h,
      projectId,
      {
        name: "support-chat",
        startedAt: T0,
        endedAt: T0 + 2000,
        referenceId: "req-1",
        sessionId: "sess-1",
        attributes: { "user.plan": "pro", retries: 2 },
        tags: ["production"],
      },
      [
        {
          name: "llm-call",
          status: "success",
          startedAt: T0 + 100,
          endedAt: T0 + 1300,
          attributes: { temperature: 0.2 },
          tags: ["llm"],
          content: modelContent(0.25),
        },
      ],
    );
    const later = await h.request("POST", "/logs/span", {
      body: {
        projectId,
        span: {
          traceId,
          name: "lookup",
          status: "failure",
          startedAt: T0 + 1400,
          endedAt: T0 + 1450,
          content: JSON.stringify({ type: "Tool", input: "{}", output: "{}" }),
        },
      },
    });
    expect(later.status, JSON.stringify(later.body)).toBe(200);
    const toolId: string = later.body.spanId;

    const trace = (await h.request("POST", "/logs/traces", { body: { projectId } })).body.traces[0];
    expect(trace).toMatchObject({
      id: traceId,
      latency: 2000,
      totalCost: 0.25,
      totalInputTokens: 12,
      totalOutputTokens: 5,
      spanIds: [...spanIds, toolId],
    });
    const traces = (filter: Body) => searchIds(h, "/logs/traces", { projectId, filters: [filter] });
    expect(await traces({ column: "attributes", key: "user.plan", operator: "equals", value: "pro" })).toEqual([
      traceId,
    ]);
    expect(await traces({ column: "attributes", key: "retries", operator: "gte", value: 2 })).toEqual([traceId]);
    expect(await traces({ column: "tags", operator: "contains", value: "production" })).toEqual([traceId]);
    expect(await traces({ column: "tags", operator: "contains", value: "llm" })).toEqual([]);
    expect(await traces({ column: "totalTokens", operator: "equals", value: 17 })).toEqual([traceId]);

    const spans = (body: Body) => searchIds(h, "/logs/spans", { projectId, ...body });
    expect(await spans({ provider: "OPENAI", model: "4o" })).toEqual(spanIds);
    expect(await spans({ name: "support" })).toEqual([toolId, ...spanIds]);
    expect(await spans({ filters: [{ column: "contentType", operator: "equals", value: "Tool" }] })).toEqual([toolId]);
    expect(
      await spans({ filters: [{ column: "attributes", key: "temperature", operator: "lt", value: 0.5 }] }),
    ).toEqual(spanIds);
    expect(await spans({ filters: [{ column: "cost", operator: "not-equals", value: 0.25 }] })).toEqual([toolId]);
    const tool = (await h.request("POST", "/logs/spans", { body: { projectId, status: "failure" } })).body.spans[0];
    expect(tool).toMatchObject({ id: toolId, contentType: "Tool", parsedContent: { type: "Tool", input: "{}" } });
    expect(JSON.parse(tool.content)).toEqual({ type: "Tool", input: "{}", output: "{}" });

    const patched = await h.request("PATCH", "/logs/trace", {
      body: {
        projectId,
        referenceId: "req-1",
        logTrace: {
          status: "failure",
          attributes: [
            { operation: "create", key: "feedback", value: "too slow" },
            { operation: "delete", key: "retries" },
          ],
          tags: [
            { operation: "create", tag: "reviewed" },
            { operation: "delete", tag: "production" },
          ],
        },
      },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(await traces({ column: "attributes", key: "feedback", operator: "contains", value: "SLOW" })).toEqual([
      traceId,
    ]);
    expect(await traces({ column: "attributes", key: "retries", operator: "exists", value: false })).toEqual([traceId]);
    expect(await traces({ column: "tags", operator: "in", value: ["reviewed"] })).toEqual([traceId]);
    expect(await traces({ column: "tags", operator: "not-contains", value: "production" })).toEqual([traceId]);
    expect(await searchIds(h, "/logs/traces", { projectId, status: "failure" })).toEqual([traceId]);
  });

  for (const sort of ["startedAt:desc", "startedAt:asc"] as const) {
    it(`walks every matching trace and span exactly once while new ones are written (${sort})`, async () => {
      const h = use();
      const projectId = await newProject(h);
      // 48 traces over 12 start times (ties broken by id), each with two spans; half of them tagged `walk`.
      const seeded = { traces: new Set<string>(), spans: new Set<string>() };
      for (let i = 0; i < 48; i++) {
        const startedAt = T0 + 1000 * (i % 12);
        const tags = i % 2 === 0 ? ["walk"] : ["other"];
        const span = (n: number) => ({
          name: `s${n}`,
          status: "success",
          startedAt: startedAt + (n % 2),
          endedAt: startedAt + 10,
          tags,
          content: { type: "Other", input: "{}", output: "{}" },
        });
        const written = await writeTrace(h, projectId, { name: `t${i}`, startedAt, endedAt: startedAt + 10, tags }, [
          span(0),
          span(1),
        ]);
        if (i % 2 === 0) {
          seeded.traces.add(written.traceId);
          for (const id of written.spanIds) seeded.spans.add(id);
        }
      }

      for (const path of ["/logs/traces", "/logs/spans"] as const) {
        const seededIds = path === "/logs/traces" ? seeded.traces : seeded.spans;
        const body = { projectId, sort, limit: 5, filters: [{ column: "tags", operator: "contains", value: "walk" }] };
        // Writes between every page: rows before, inside and after the seeded time range, and ties with it.
        let n = 0;
        const writeSome = async () => {
          const writes = [T0 - 5000, T0 + 5000, T0 + 99_000, T0 + 1000 * (n % 12)].map((startedAt) =>
            writeTrace(h, projectId, { name: `new${n++}`, startedAt, tags: ["walk"] }, [
              {
                name: "new",
                status: "success",
                startedAt,
                endedAt: startedAt + 1,
                tags: ["walk"],
                content: { type: "Other", input: "{}", output: "{}" },
              },
            ]),
          );
          await Promise.all(writes);
        };
        // The walk and the writes run concurrently: each page request races a batch of writes.
        const concurrent: Promise<unknown>[] = [];
        const rows = await walk(h, path, body, async () => {
          concurrent.push(writeSome());
        });
        await Promise.all(concurrent);

        const walked = rows.map((row) => row.id);
        expect(new Set(walked).size, "no row twice").toBe(walked.length);
        expect(walked.filter((id) => seededIds.has(id)).length, "every seeded row once").toBe(seededIds.size);
        expectKeysetOrder(rows, sort);
      }
    });
  }
});
