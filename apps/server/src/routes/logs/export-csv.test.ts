/** The CSV form of the log exports (`"format": "csv"` on POST /logs/traces/export and /logs/spans/export). */
import { expect, it } from "vitest";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import { insertSpan, insertTrace, newProject, T0 } from "../../testing/log-search-fixtures.ts";

type Body = Record<string, unknown>;

const post = (h: Harness, path: string, body: Body) =>
  h.app.request(`/v2${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${h.key}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

/** RFC 4180, read here independently of the server's writer: rows of fields, CRLF line ends required. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let at = 0;
  while (at < text.length) {
    let field = "";
    if (text[at] === '"') {
      at += 1;
      for (;;) {
        const quote = text.indexOf('"', at);
        if (quote < 0) throw new Error("unterminated quoted field");
        field += text.slice(at, quote);
        at = quote + 1;
        if (text[at] !== '"') break;
        field += '"';
        at += 1;
      }
    } else {
      const end = text.slice(at).search(/[,\r\n]/);
      field = end < 0 ? text.slice(at) : text.slice(at, at + end);
      at = end < 0 ? text.length : at + end;
    }
    row.push(field);
    if (text[at] === ",") {
      at += 1;
    } else if (text.startsWith("\r\n", at)) {
      rows.push(row);
      row = [];
      at += 2;
    } else {
      throw new Error(`expected , or CRLF at ${at}, got ${JSON.stringify(text.slice(at, at + 10))}`);
    }
  }
  if (row.length > 0) throw new Error("the last row does not end with CRLF");
  return rows;
}

async function exportCsv(h: Harness, path: string, body: Body): Promise<string[][]> {
  const response = await post(h, path, { ...body, format: "csv" });
  expect(response.status, await response.clone().text()).toBe(200);
  expect(response.headers.get("Content-Type")).toBe("text/csv; charset=utf-8; header=present");
  return parseCsv(await response.text());
}

/** What a CSV field of a search item's value must be. */
const asField = (value: unknown) => (value === null ? "" : typeof value === "string" ? value : JSON.stringify(value));

/** Every item of the search, page by page. */
async function searchAll(h: Harness, path: string, field: string, body: Body): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let cursor: string | undefined;
  do {
    const response = await post(h, path, { ...body, limit: 200, ...(cursor && { cursor }) });
    const page = (await response.json()) as Record<string, any>;
    items.push(...page[field]);
    cursor = page.pagination.nextCursor ?? undefined;
  } while (cursor);
  return items;
}

const TRACE_COLUMNS = [
  "id",
  "name",
  "status",
  "startedAt",
  "endedAt",
  "latency",
  "referenceId",
  "sessionId",
  "userId",
  "attributes",
  "tags",
  "totalCost",
  "totalInputTokens",
  "totalOutputTokens",
  "spanIds",
  "scores",
  "createdAt",
  "updatedAt",
  "nextCursor",
];

describeEachStore("log export as CSV", (use) => {
  it("writes a header row and a row per trace as the search returns them, quoted per RFC 4180, nested fields as JSON, checkpoints in nextCursor; resumes from one", async () => {
    const h = use();
    const projectId = await newProject(h);
    const awkward = ["plain", "with, comma", 'with "quotes"', "two\r\nlines", "line\nfeed", "ünïcödé ✓"];
    for (let i = 0; i < 450; i++) {
      await insertTrace(h, {
        projectId,
        startedAt: T0 + i,
        name: awkward[i % awkward.length] as string,
        ...(i % 3 === 0 && { sessionId: `s,${i % 7}`, userId: `u"${i % 5}` }),
        attributes: { plan: i % 2 ? "pro" : 'free, "trial"', retries: i % 4, cached: i % 5 === 0 },
        tags: i % 2 ? ["a", "b,c"] : [],
        totalCost: i / 1000,
      });
    }
    const rows = await exportCsv(h, "/logs/traces/export", { projectId });
    const [header, ...data] = rows;
    expect(header).toEqual(TRACE_COLUMNS);
    const traces = await searchAll(h, "/logs/traces", "traces", { projectId });
    expect(data.length).toBe(450);
    expect(data.map((row) => row.slice(0, -1))).toEqual(
      traces.map((trace) => TRACE_COLUMNS.slice(0, -1).map((column) => asField(trace[column]))),
    );
    // A checkpoint on the last row of each page that has a next one (rows 200 and 400), nowhere else.
    const checkpoints = data.flatMap((row, index) => (row.at(-1) ? [index] : []));
    expect(checkpoints).toEqual([199, 399]);

    // Resumed from the first checkpoint: the rows after it, the header again first.
    const cursor = data[199]?.at(-1) as string;
    const [again, ...rest] = await exportCsv(h, "/logs/traces/export", { projectId, cursor });
    expect(again).toEqual(TRACE_COLUMNS);
    expect(rest).toEqual(data.slice(200));
    // The format does not change the cursors: a CSV checkpoint resumes an NDJSON export.
    const ndjson = await post(h, "/logs/traces/export", { projectId, cursor });
    const lines = (await ndjson.text()).trim().split("\n");
    expect(lines.filter((line) => line.startsWith('{"id":')).length).toBe(250);
  });

  it("writes spans without parsedContent, their content as its JSON text; filters apply; an empty export is the header alone", async () => {
    const h = use();
    const projectId = await newProject(h);
    const traceId = await insertTrace(h, { projectId, startedAt: T0 });
    for (let i = 0; i < 3; i++) await insertSpan(h, traceId, { startedAt: T0 + i, tags: [`t${i}`] });
    const [header, ...data] = await exportCsv(h, "/logs/spans/export", { projectId, sort: "startedAt:asc" });
    expect(header).not.toContain("parsedContent");
    expect(header?.slice(0, 3)).toEqual(["id", "name", "status"]);
    expect(header?.at(-1)).toBe("nextCursor");
    const spans = await searchAll(h, "/logs/spans", "spans", { projectId, sort: "startedAt:asc" });
    const columns = (header as string[]).slice(0, -1);
    expect(data.map((row) => row.slice(0, -1))).toEqual(
      spans.map((span) => columns.map((column) => asField(span[column]))),
    );
    expect(JSON.parse(data[0]?.[columns.indexOf("content")] as string)).toEqual(spans[0]?.parsedContent);

    const filtered = await exportCsv(h, "/logs/spans/export", {
      projectId,
      filters: [{ column: "tags", operator: "contains", value: "t1" }],
    });
    expect(filtered.length).toBe(2);
    const empty = await exportCsv(h, "/logs/traces/export", { projectId, startedAfter: T0 + 1_000_000 });
    expect(empty).toEqual([TRACE_COLUMNS]);
  });

  it("400 VALIDATION_ERROR for an unknown format, 400 INVALID_CURSOR for a bad cursor, as JSON before any row", async () => {
    const h = use();
    const projectId = await newProject(h);
    for (const path of ["/logs/traces/export", "/logs/spans/export"]) {
      const unknown = await post(h, path, { projectId, format: "xlsx" });
      await expectError({ status: unknown.status, body: await unknown.json() }, 400, "VALIDATION_ERROR");
      const bad = await post(h, path, { projectId, format: "csv", cursor: "garbage" });
      expect(bad.headers.get("Content-Type")).toMatch(/^application\/json/);
      await expectError({ status: bad.status, body: await bad.json() }, 400, "INVALID_CURSOR");
    }
  });
});
