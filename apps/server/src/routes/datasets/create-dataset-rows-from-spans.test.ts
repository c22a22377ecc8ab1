/** createDatasetRowsFromSpans: rows made from spans logged through the API, by id and by search. */
import { expect, it } from "vitest";
import { ok } from "../../testing/evaluation-fixtures.ts";
import { expectError } from "../../testing/expect-error.ts";
import { describeEachStore, type Harness } from "../../testing/harness.ts";
import {
  createTrace,
  missingId,
  modelSpan,
  newProject,
  stepSpan,
  T0,
  traceBody,
} from "../../testing/log-write-fixtures.ts";

const variable = (value: string) => ({ modality: "text", value });

/** A dataset with question, orderId, answer and prompt columns, and a trace of two Model spans and a Tool span. */
async function spansAndDataset(h: Harness, projectId = h.projectId) {
  const dataset = await ok(h, "POST", "/datasets", {
    projectId,
    title: "From production",
    columns: ["question", "orderId", "answer", "prompt"].map((name) => ({ name, type: "static" })),
  });
  const ids = Object.fromEntries(
    dataset.columns.map((column: { id: string; name: string }) => [column.name, column.id]),
  );
  const { spanIds } = await createTrace(
    h,
    traceBody(
      h,
      {},
      [
        modelSpan(
          { name: "first", startedAt: T0 + 100 },
          { variables: { question: variable("Where is 8812?"), orderId: variable("8812") } },
        ),
        modelSpan({ name: "second", startedAt: T0 + 200 }, { variables: { question: variable("And 9913?") } }),
        stepSpan({ name: "tool", startedAt: T0 + 300 }),
      ],
      projectId,
    ),
  );
  return { datasetId: dataset.id as string, ids, spanIds: spanIds as [string, string, string] };
}

const fromSpans = (h: Harness, datasetId: string, body: unknown, key?: string) =>
  h.request("POST", `/datasets/${datasetId}/rows/from-spans`, { body, key });

describeEachStore("createDatasetRowsFromSpans", (use) => {
  it("201: one row per span id, in order: variables by column name, output and input text, sourceSpanId", async () => {
    const h = use();
    const { datasetId, ids, spanIds } = await spansAndDataset(h);
    const [first, second, tool] = spanIds;
    const reply = await fromSpans(h, datasetId, {
      spanIds: [second, first, tool],
      outputColumn: "answer",
      inputColumn: "prompt",
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    const [fromSecond, fromFirst, fromTool] = reply.body.rows;
    expect(fromFirst.values).toEqual({
      [ids.question]: "Where is 8812?",
      [ids.orderId]: "8812",
      [ids.answer]: "It ships tomorrow.",
      [ids.prompt]: "Where is my order 8812?",
    });
    expect(fromSecond.values).toMatchObject({ [ids.question]: "And 9913?", [ids.orderId]: null });
    // A span outside the platform form keeps its stored text.
    expect(fromTool.values).toMatchObject({ [ids.answer]: '{"status":"shipped"}', [ids.prompt]: '{"orderId":"8812"}' });
    expect(reply.body.rows.map((row: { sourceSpanId: string }) => row.sourceSpanId)).toEqual([second, first, tool]);
    const listed = await ok(h, "GET", `/datasets/${datasetId}/rows?sort=createdAt:asc`);
    expect(listed.rows).toEqual(reply.body.rows);
    expect((await ok(h, "GET", `/datasets/${datasetId}`)).rowCount).toBe(3);
    const plain = await ok(h, "POST", `/datasets/${datasetId}/rows`, { rows: [{ values: { question: "typed" } }] });
    expect("sourceSpanId" in plain.rows[0]).toBe(false);
  });

  it("201: by a span search of the dataset's project, the first `maxRows` in the search's order", async () => {
    const h = use();
    // A project of its own: the block's other tests log spans too.
    const projectId = await newProject(h);
    const { datasetId, ids, spanIds } = await spansAndDataset(h, projectId);
    const [first, second] = spanIds;
    const all = await fromSpans(h, datasetId, { search: { projectId, model: "gpt" } });
    expect(all.status, JSON.stringify(all.body)).toBe(201);
    expect(all.body.rows.map((row: { sourceSpanId: string }) => row.sourceSpanId)).toEqual([second, first]);
    const one = await fromSpans(h, datasetId, { search: { projectId, model: "gpt" }, maxRows: 1 });
    expect(one.body.rows.map((row: { sourceSpanId: string }) => row.sourceSpanId)).toEqual([second]);
    expect(one.body.rows[0].values[ids.question]).toBe("And 9913?");
    const none = await fromSpans(h, datasetId, { search: { projectId, name: "nothing-like-this" } });
    expect(none.status).toBe(201);
    expect(none.body.rows).toEqual([]);
    expect((await ok(h, "GET", `/datasets/${datasetId}`)).rowCount).toBe(3);
  });

  it("400 VALIDATION_ERROR listing every missing column (variables and named columns), nothing written", async () => {
    const h = use();
    const { datasetId, spanIds } = await spansAndDataset(h);
    await ok(
      h,
      "DELETE",
      `/datasets/${datasetId}/columns/${(await ok(h, "GET", `/datasets/${datasetId}`)).columns[1].id}`,
    );
    const reply = await fromSpans(h, datasetId, { spanIds, outputColumn: "expected", inputColumn: "prompt" });
    await expectError(reply, 400, "VALIDATION_ERROR");
    expect(reply.body.error.details).toEqual([
      { field: "outputColumn", issue: 'The dataset has no column "expected".' },
      { field: "columns.orderId", issue: 'The dataset has no column "orderId".' },
    ]);
    expect((await ok(h, "GET", `/datasets/${datasetId}`)).rowCount).toBe(0);
  });

  it("400 VALIDATION_ERROR for both or neither of spanIds and search, too many or repeated ids, another project's search, a value too long", async () => {
    const h = use();
    const { datasetId, spanIds } = await spansAndDataset(h);
    const elsewhere = await newProject(h);
    const tooMany = Array.from({ length: 101 }, (_, i) => `span_${String(i).padStart(26, "0")}`);
    for (const body of [
      {},
      { spanIds, search: { projectId: h.projectId } },
      { spanIds: tooMany },
      { spanIds: [] },
      { spanIds: [spanIds[0], spanIds[0]] },
      { search: { projectId: elsewhere } },
      { search: { projectId: h.projectId }, maxRows: 1001 },
      { spanIds, outputColumn: "a,b" },
      { spanIds, unknown: true },
    ]) {
      await expectError(await fromSpans(h, datasetId, body), 400, "VALIDATION_ERROR");
    }
    const { spanIds: long } = await createTrace(
      h,
      traceBody(h, {}, [modelSpan({}, { variables: { question: variable("x".repeat(100_001)) } })]),
    );
    const reply = await fromSpans(h, datasetId, { spanIds: long });
    await expectError(reply, 400, "VALIDATION_ERROR");
    expect(reply.body.error.details).toEqual([{ field: `spans.${long[0]}`, issue: expect.stringContaining("100000") }]);
  });

  it("404 for a span of no span or of another project, an unknown dataset, another workspace; 403 for read-only keys", async () => {
    const h = use();
    const { datasetId, spanIds } = await spansAndDataset(h);
    const elsewhere = await newProject(h);
    const { spanIds: foreign } = await createTrace(h, traceBody(h, {}, [modelSpan()], elsewhere));
    for (const ids of [[missingId("span")], [spanIds[0], foreign[0]]]) {
      await expectError(await fromSpans(h, datasetId, { spanIds: ids }), 404, "RESOURCE_NOT_FOUND");
    }
    await expectError(await fromSpans(h, missingId("dataset"), { spanIds }), 404, "RESOURCE_NOT_FOUND");
    const other = await h.otherWorkspace();
    await expectError(await fromSpans(h, datasetId, { spanIds }, other.key), 404, "RESOURCE_NOT_FOUND");
    await expectError(await fromSpans(h, datasetId, { spanIds }, await h.newKey("read-only")), 403, "FORBIDDEN");
    expect((await ok(h, "GET", `/datasets/${datasetId}`)).rowCount).toBe(0);
  });
});
