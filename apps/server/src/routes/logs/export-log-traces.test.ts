import { expect, it } from "vitest";
import { seedSpans } from "../../../../../scripts/bench/seed.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import { insertTrace, newProject, T0 } from "../../testing/log-search-fixtures.ts";

type Body = Record<string, unknown>;

const post = (h: Harness, path: string, body: Body) =>
  h.app.request(`/v2${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${h.key}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });

async function exportLines(h: Harness, body: Body): Promise<string[]> {
  const response = await post(h, "/logs/traces/export", body);
  expect(response.status).toBe(200);
  expect(response.headers.get("Content-Type")).toBe("application/x-ndjson");
  const text = await response.text();
  expect(text.endsWith("\n")).toBe(true);
  return text.slice(0, -1).split("\n");
}

const isTrace = (line: string) => line.startsWith('{"id":');

/** Every search page of 200, as the raw response text. */
async function searchPages(h: Harness, body: Body): Promise<string[]> {
  const pages: string[] = [];
  let cursor: string | undefined;
  do {
    const response = await post(h, "/logs/traces", { ...body, limit: 200, ...(cursor && { cursor }) });
    expect(response.status).toBe(200);
    const text = await response.text();
    pages.push(text);
    cursor = JSON.parse(text).pagination.nextCursor ?? undefined;
  } while (cursor);
  return pages;
}

/**
 * Ten export pages are enough to check paging and checkpoints; issue 18's 100,000-span bar is the span export's
 * test (export-log-spans.test.ts), and size and memory are the export bench's (scripts/bench/export.ts).
 */
const SPANS = 10_000;
const TRACES = SPANS / 5;

describeEachStore("exportLogTraces", (use) => {
  it("streams every trace byte for byte as the search pages serialize them (2,000 traces of 10,000 spans)", async () => {
    const h = use();
    const projectId = await newProject(h, "Export");
    await seedSpans(h.store, { projectId, spans: SPANS, from: T0 });
    const lines = await exportLines(h, { projectId });
    const traces = lines.filter(isTrace);
    expect(traces.length).toBe(TRACES);
    expect(lines.at(-1)).toBe(`{"end":true,"exported":${TRACES}}`);
    expect(lines.length).toBe(TRACES + TRACES / 200 - 1 + 1);
    const pages = await searchPages(h, { projectId });
    expect(pages.length).toBe(TRACES / 200);
    for (const [index, page] of pages.entries()) {
      const slice = traces.slice(index * 200, (index + 1) * 200);
      expect(page.startsWith(`{"traces":[${slice.join(",")}],"pagination":`), `page ${index}`).toBe(true);
    }

    // Filters and sort are the search's; `name` matches 2 of the 3 trace names of the seed.
    const body = {
      projectId,
      name: "chat",
      sort: "startedAt:asc",
      filters: [{ column: "attributes", key: "user.plan", operator: "equals", value: "pro" }],
    };
    const filtered = (await exportLines(h, body)).filter(isTrace);
    const searched = (await searchPages(h, body)).flatMap((page) =>
      (JSON.parse(page).traces as unknown[]).map((trace) => JSON.stringify(trace)),
    );
    expect(filtered.length).toBeGreaterThan(200);
    expect(filtered).toEqual(searched);
  }, 300_000);

  it("resumes from a checkpoint, and answers a bad cursor or a limit as JSON errors", async () => {
    const h = use();
    const projectId = await newProject(h);
    for (let i = 0; i < 450; i++) await insertTrace(h, { projectId, startedAt: T0 + i });
    const whole = await exportLines(h, { projectId });
    const checkpoints = whole.filter((line) => line.startsWith('{"nextCursor":'));
    expect(checkpoints.length).toBe(2);
    const cursor = JSON.parse(checkpoints[0] as string).nextCursor;
    const resumed = await exportLines(h, { projectId, cursor });
    expect(resumed.filter(isTrace)).toEqual(whole.filter(isTrace).slice(200));
    expect(resumed.at(-1)).toBe('{"end":true,"exported":250}');

    const bad = await post(h, "/logs/traces/export", { projectId, cursor: "a.b" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("INVALID_CURSOR");
    const limit = await post(h, "/logs/traces/export", { projectId, limit: 5 });
    expect(limit.status).toBe(400);
  });
});
