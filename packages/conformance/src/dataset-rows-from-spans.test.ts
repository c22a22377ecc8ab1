/**
 * createDatasetRowsFromSpans, every response validated against the spec: spans logged through the API become
 * dataset rows, by id and by search, with their variables, output text and source span.
 */
import { type PharosClient, unwrap } from "@pharos/client";
import { beforeAll, describe, expect, it } from "vitest";
import { errorMatrixOf, itProvokedEveryDocumentedStatus, type Send } from "./cases.ts";
import { newDataset, newProject, runTag, type Schemas, unknownId } from "./fixtures.ts";
import { expectError, expectStatus } from "./replies.ts";
import { useTarget } from "./target.ts";

const use = useTarget();
const itAnswersTheErrorMatrix = errorMatrixOf(use, () => projectId);
const tag = runTag();
const T = 1_732_190_400_000;

let projectId: string;
let dataset: Schemas["Dataset"];
let spanIds: string[];

const modelSpan = (question: string, answer: string, startedAt: number) => ({
  name: `answer-${tag}`,
  status: "success" as const,
  startedAt,
  endedAt: startedAt + 500,
  content: {
    type: "Model" as const,
    provider: "openai",
    model: "gpt-4o-mini",
    input: JSON.stringify({ messages: [{ role: "user", content: [{ modality: "text", value: question }] }] }),
    output: JSON.stringify({ messages: [{ role: "assistant", content: [{ modality: "text", value: answer }] }] }),
    variables: { question: { modality: "text" as const, value: question } },
  },
});

beforeAll(async () => {
  const { client } = use();
  projectId = (await newProject(client, `Rows from spans ${tag}`)).id;
  dataset = await newDataset(client, projectId, {
    title: `From logs ${tag}`,
    columns: [
      { name: "question", type: "static" },
      { name: "expected", type: "static" },
    ],
  });
  const written = unwrap(
    await client.POST("/logs/trace", {
      body: {
        projectId,
        trace: { name: `chat-${tag}`, status: "success", startedAt: T, endedAt: T + 2000 },
        spans: [modelSpan("Where is 8812?", "It ships tomorrow.", T + 100), modelSpan("And 9913?", "Friday.", T + 700)],
      },
    }),
  );
  spanIds = written.spanIds;
});

const columnId = (name: string) => dataset.columns.find((column) => column.name === name)?.id as string;
const readRows = async (client: PharosClient) =>
  unwrap(
    await client.GET("/datasets/{datasetId}/rows", {
      params: { path: { datasetId: dataset.id }, query: { limit: 200 } },
    }),
  ).rows;

describe("createDatasetRowsFromSpans", () => {
  const send: Send = (client, extra, id = dataset.id) =>
    client.POST("/datasets/{datasetId}/rows/from-spans", {
      params: { path: { datasetId: id } },
      body: { spanIds: [spanIds[0] as string], outputColumn: "expected" },
      ...extra,
    });

  it("201: rows by span id and by search, with variables, output text and sourceSpanId, visible on row reads", async () => {
    const { client } = use();
    const byId = await client.POST("/datasets/{datasetId}/rows/from-spans", {
      params: { path: { datasetId: dataset.id } },
      body: { spanIds, outputColumn: "expected" },
    });
    expectStatus(byId, 201);
    expect(byId.data?.rows.map((row) => [row.values, row.sourceSpanId])).toEqual([
      [{ [columnId("question")]: "Where is 8812?", [columnId("expected")]: "It ships tomorrow." }, spanIds[0]],
      [{ [columnId("question")]: "And 9913?", [columnId("expected")]: "Friday." }, spanIds[1]],
    ]);
    const bySearch = await client.POST("/datasets/{datasetId}/rows/from-spans", {
      params: { path: { datasetId: dataset.id } },
      body: { search: { projectId, name: `answer-${tag}` }, maxRows: 1 },
    });
    expectStatus(bySearch, 201);
    expect(bySearch.data?.rows.map((row) => row.sourceSpanId)).toEqual([spanIds[1]]);
    const rows = await readRows(client);
    expect(rows.filter((row) => row.sourceSpanId === spanIds[1])).toHaveLength(2);
  });

  it("400 VALIDATION_ERROR for a missing column (named in the details), both or neither selector and 101 span ids", async () => {
    const { client } = use();
    const before = await readRows(client);
    const missing = await client.POST("/datasets/{datasetId}/rows/from-spans", {
      params: { path: { datasetId: dataset.id } },
      body: { spanIds, outputColumn: "answer" },
    });
    expectError(missing, 400, "VALIDATION_ERROR");
    expect(missing.error?.error.details).toEqual([
      { field: "outputColumn", issue: 'The dataset has no column "answer".' },
    ]);
    for (const body of [
      {},
      { spanIds, search: { projectId } },
      { spanIds: Array.from({ length: 101 }, (_, i) => unknownId(`span${i}`)) },
    ]) {
      const reply = await client.POST("/datasets/{datasetId}/rows/from-spans", {
        params: { path: { datasetId: dataset.id } },
        body: body as never,
      });
      expectError(reply, 400, "VALIDATION_ERROR");
    }
    expect(await readRows(client)).toEqual(before);
  });

  it("404 RESOURCE_NOT_FOUND for a span id of no span", async () => {
    const reply = await use().client.POST("/datasets/{datasetId}/rows/from-spans", {
      params: { path: { datasetId: dataset.id } },
      body: { spanIds: [unknownId("span")] },
    });
    expectError(reply, 404, "RESOURCE_NOT_FOUND");
  });

  itAnswersTheErrorMatrix({ access: "write", send, unknown: "dataset", body: true, unchanged: readRows });
});

itProvokedEveryDocumentedStatus(use, ["createDatasetRowsFromSpans"]);
