import { expect, it } from "vitest";
import { seedSpans } from "../../../../../scripts/bench/seed.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import { insertSpan, insertTrace, newProject, T0 } from "../../testing/log-search-fixtures.ts";

type Body = Record<string, unknown>;

const post = (h: Harness, path: string, body: Body) =>
  h.app.request(`/v2${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${h.key}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

/** A search page's or an error's JSON body, as much of it as the tests read. */
interface Json {
  spans: unknown[];
  pagination: { nextCursor: string | null };
  error: { code: string };
}
const json = async (response: Response) => (await response.json()) as Json;

/** The export's body, whole, as text. */
async function exportText(h: Harness, body: Body): Promise<string> {
  const response = await post(h, "/logs/spans/export", body);
  expect(response.status).toBe(200);
  expect(response.headers.get("Content-Type")).toBe("application/x-ndjson");
  return response.text();
}

interface Lines {
  /** The span lines, verbatim. */
  spans: string[];
  checkpoints: { nextCursor: string; exported: number }[];
  end: { end: true; exported: number } | undefined;
}

function linesOf(text: string): Lines {
  expect(text.endsWith("\n")).toBe(true);
  const lines: Lines = { spans: [], checkpoints: [], end: undefined };
  for (const line of text.slice(0, -1).split("\n")) {
    const value = JSON.parse(line);
    expect(lines.end, "nothing follows the end line").toBeUndefined();
    if ("id" in value) lines.spans.push(line);
    else if ("nextCursor" in value) lines.checkpoints.push(value);
    else lines.end = value;
  }
  return lines;
}

/** Every search page of 200, as the raw response text. */
async function searchPages(h: Harness, body: Body): Promise<string[]> {
  const pages: string[] = [];
  let cursor: string | undefined;
  do {
    const response = await post(h, "/logs/spans", { ...body, limit: 200, ...(cursor && { cursor }) });
    expect(response.status).toBe(200);
    const text = await response.text();
    pages.push(text);
    cursor = JSON.parse(text).pagination.nextCursor ?? undefined;
  } while (cursor);
  return pages;
}

/** Issue 18's bar: 100,000 spans on each database (about 25 s on SQLite, 45 s on PostgreSQL on 2 cores). */
const SPANS = 100_000;

describeEachStore("exportLogSpans", (use) => {
  it("streams every span byte for byte as the search pages serialize them, with a checkpoint per page and the end line", async () => {
    const h = use();
    const spans = SPANS;
    const projectId = await newProject(h, "Export");
    await seedSpans(h.store, { projectId, spans, from: T0 });

    const body = { projectId };
    const lines = linesOf(await exportText(h, body));
    expect(lines.spans.length).toBe(spans);
    expect(lines.end).toEqual({ end: true, exported: spans });
    expect(lines.checkpoints.length).toBe(Math.ceil(spans / 200) - 1);
    expect(lines.checkpoints.map((c) => c.exported)).toEqual(lines.checkpoints.map((_, i) => (i + 1) * 200));

    const pages = await searchPages(h, body);
    expect(pages.length).toBe(Math.ceil(spans / 200));
    for (const [index, page] of pages.entries()) {
      const slice = lines.spans.slice(index * 200, (index + 1) * 200);
      // Byte-exact: the search page's `spans` array is these very lines, joined by commas.
      expect(page.startsWith(`{"spans":[${slice.join(",")}],"pagination":`), `page ${index}`).toBe(true);
      const next = JSON.parse(page).pagination.nextCursor;
      if (index < pages.length - 1) expect(typeof next).toBe("string");
    }
  }, 300_000);

  it("applies the search's fields and filters and its sort, and an empty result is just the end line", async () => {
    const h = use();
    const projectId = await newProject(h);
    const support = await insertTrace(h, { projectId, name: "support-chat" });
    const spans: string[] = [];
    for (let i = 0; i < 450; i++) {
      spans.push(
        await insertSpan(h, support, {
          name: i % 3 === 0 ? "llm-call" : "lookup",
          startedAt: T0 + i,
          status: i % 2 === 0 ? "success" : "failure",
          attributes: { "user.plan": i % 5 === 0 ? "pro" : "free" },
          cost: i / 1000,
        }),
      );
    }
    const body = {
      projectId,
      name: "llm",
      status: "success",
      filters: [{ column: "cost", operator: "gte", value: 0.1 }],
      sort: "startedAt:asc",
    };
    const expected = spans.filter((_, i) => i % 3 === 0 && i % 2 === 0 && i >= 100);
    const lines = linesOf(await exportText(h, body));
    expect(lines.spans.map((line) => JSON.parse(line).id)).toEqual(expected);
    expect(lines.end).toEqual({ end: true, exported: expected.length });
    const pages = await searchPages(h, body);
    expect(lines.spans.join(",")).toBe(
      pages.flatMap((page) => JSON.parse(page).spans.map((s: unknown) => JSON.stringify(s))).join(","),
    );

    const attribute = {
      projectId,
      filters: [{ column: "attributes", key: "user.plan", operator: "equals", value: "pro" }],
    };
    const pro = linesOf(await exportText(h, attribute));
    expect(pro.spans.map((line) => JSON.parse(line).id)).toEqual(spans.filter((_, i) => i % 5 === 0).reverse());
    expect(pro.checkpoints).toEqual([]);

    expect(await exportText(h, { projectId, name: "nothing-matches" })).toBe('{"end":true,"exported":0}\n');
  });

  it("resumes an interrupted export from its last checkpoint: the union is the whole export, without duplicates", async () => {
    const h = use();
    const projectId = await newProject(h);
    const trace = await insertTrace(h, { projectId });
    for (let i = 0; i < 700; i++) await insertSpan(h, trace, { startedAt: T0 + (i % 350) });
    const whole = linesOf(await exportText(h, { projectId })).spans;
    expect(whole.length).toBe(700);

    // The client reads past the first checkpoint, into the second page, then drops the connection.
    const response = await post(h, "/logs/spans/export", { projectId });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let received = "";
    while ((received.match(/"nextCursor"/g) ?? []).length < 2) {
      const { value, done } = await reader.read();
      expect(done).toBe(false);
      received += decoder.decode(value, { stream: true });
    }
    await reader.cancel();
    const cut = received.slice(0, received.lastIndexOf("\n") + 1);
    const partial = cut.split("\n").filter(Boolean);
    const lastCheckpoint = partial.findLastIndex((line) => line.includes('"nextCursor"'));
    const kept = partial.slice(0, lastCheckpoint).filter((line) => !line.includes('"nextCursor"'));
    const cursor = JSON.parse(partial[lastCheckpoint] as string).nextCursor;
    expect(kept.length).toBe(400);

    const resumed = linesOf(await exportText(h, { projectId, cursor }));
    expect(resumed.end).toEqual({ end: true, exported: 300 });
    const union = [...kept, ...resumed.spans];
    expect(union).toEqual(whole);
    expect(new Set(union.map((line) => JSON.parse(line).id)).size).toBe(700);

    // A search page's cursor starts an export after that page, and a checkpoint's cursor pages a search.
    const page = await json(await post(h, "/logs/spans", { projectId, limit: 123 }));
    const rest = linesOf(await exportText(h, { projectId, cursor: page.pagination.nextCursor }));
    expect(rest.spans).toEqual(whole.slice(123));
    const searched = await json(await post(h, "/logs/spans", { projectId, cursor, limit: 5 }));
    expect(searched.spans.map((s: unknown) => JSON.stringify(s))).toEqual(whole.slice(400, 405));
  });

  it("answers errors known before the first byte as JSON: bad cursor, unknown project, a body with limit", async () => {
    const h = use();
    const projectId = await newProject(h);
    const bad = await post(h, "/logs/spans/export", { projectId, cursor: "a.b" });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error.code).toBe("INVALID_CURSOR");
    const limit = await post(h, "/logs/spans/export", { projectId, limit: 10 });
    expect(limit.status).toBe(400);
    expect((await json(limit)).error.code).toBe("VALIDATION_ERROR");
    const other = await h.otherWorkspace();
    const unknown = await post(h, "/logs/spans/export", { projectId: other.projectId });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("Content-Type")).toMatch(/^application\/json/);
  });
});
