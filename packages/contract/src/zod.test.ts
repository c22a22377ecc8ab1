/**
 * The generated zod schemas (what the server validates with) agree with the spec: they accept every example
 * and reject a request that breaks one seed limit, each case starting from the operation's own valid example.
 */
import type { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { type OperationId, operations } from "./index.ts";
import { allExamples } from "./testing/examples.ts";

type ZodObjectLike = z.ZodType & { shape?: Record<string, z.ZodType> };
interface RouteLike {
  request?: {
    body?: { content: Record<string, { schema: z.ZodType }> };
    query?: ZodObjectLike;
    params?: ZodObjectLike;
    headers?: ZodObjectLike;
  };
  responses: Record<string, { content?: Record<string, { schema: z.ZodType }> }>;
}

const route = (id: string) => operations[id as OperationId] as unknown as RouteLike;
const bodySchema = (id: string) => route(id).request?.body?.content["application/json"]?.schema as z.ZodType;
const examples = allExamples();
/** A response's JSON media type, or its NDJSON one, whose schema is one line's (POST /logs/spans/export). */
const mediaOf = (content: Record<string, { schema: z.ZodType }> | undefined) =>
  content?.["application/json"] ?? content?.["application/x-ndjson"];

function requestExample(id: string): Record<string, unknown> {
  const found = examples.find((e) => e.operation?.operationId === id && e.part?.kind === "request");
  if (!found) throw new Error(`${id} has no request example`);
  return structuredClone(found.value) as Record<string, unknown>;
}

/** A copy of `value` with the field at a dotted path (numeric segments index arrays) replaced. */
function withField(value: Record<string, unknown>, path: string, replacement: unknown): Record<string, unknown> {
  const copy = structuredClone(value);
  const keys = path.split(".");
  let at = copy as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) {
    at[key] ??= {};
    at = at[key] as Record<string, unknown>;
  }
  at[keys.at(-1) as string] = replacement;
  return copy;
}

const ID_19 = "prompt_0123456789ab";
const TOO_EARLY = 1672511399999;
const TOO_LATE = 33229420200001;

describe("generated zod schemas accept every example", () => {
  const cases = examples.filter((e) => e.operation && e.part?.kind !== "parameter");
  it.each(cases.map((e) => [e.where, e] as const))("%s", (_, example) => {
    const part = example.part;
    const r = route(example.operation?.operationId as string);
    const schema =
      part?.kind === "request"
        ? r.request?.body?.content["application/json"]?.schema
        : mediaOf(r.responses[part?.kind === "response" ? part.status : ""]?.content)?.schema;
    expect(schema, "zod schema").toBeDefined();
    const result = (schema as z.ZodType).safeParse(example.value);
    expect(result.success, JSON.stringify(result.error?.issues)).toBe(true);
  });

  const parameters = examples.filter((e) => e.part?.kind === "parameter");
  it.each(parameters.map((e) => [e.where, e] as const))("%s (as a URL string)", (_, example) => {
    const part = example.part as { kind: "parameter"; name: string; in: string };
    const r = route(example.operation?.operationId as string);
    const holder =
      part.in === "path" ? r.request?.params : part.in === "header" ? r.request?.headers : r.request?.query;
    const schema = holder?.shape?.[part.name];
    expect(schema, `${part.in} parameter ${part.name}`).toBeDefined();
    const result = (schema as z.ZodType).safeParse(String(example.value));
    expect(result.success, JSON.stringify(result.error?.issues)).toBe(true);
  });
});

interface InvalidBody {
  operationId: string;
  because: string;
  body: () => unknown;
}

const invalidBodies: InvalidBody[] = [
  {
    operationId: "createPrompt",
    because: "title of 51 characters",
    body: () => withField(requestExample("createPrompt"), "title", "t".repeat(51)),
  },
  {
    operationId: "createPrompt",
    because: "projectId of 19 characters",
    body: () => withField(requestExample("createPrompt"), "projectId", ID_19),
  },
  {
    operationId: "createPrompt",
    because: "a message role that does not exist",
    body: () =>
      withField(requestExample("createPrompt"), "draft.messages", [
        { role: "robot", content: [{ modality: "text", value: "hi" }] },
      ]),
  },
  {
    operationId: "createDataset",
    because: "title of 51 characters",
    body: () => withField(requestExample("createDataset"), "title", "t".repeat(51)),
  },
  {
    operationId: "createDataset",
    because: "description of 101 characters",
    body: () => withField(requestExample("createDataset"), "description", "d".repeat(101)),
  },
  {
    operationId: "createEvaluator",
    because: "title of 201 characters",
    body: () => withField(requestExample("createEvaluator"), "title", "t".repeat(201)),
  },
  {
    operationId: "createEvaluator",
    because: "a config type that does not exist",
    body: () => withField(requestExample("createEvaluator"), "config", { type: "vibes", value: "x" }),
  },
  {
    operationId: "createDatasetRows",
    because: "101 rows",
    body: () => ({ rows: Array.from({ length: 101 }, () => ({ values: {} })) }),
  },
  { operationId: "createDatasetRows", because: "no rows", body: () => ({ rows: [] }) },
  {
    operationId: "searchLogTraces",
    because: "limit 201",
    body: () => withField(requestExample("searchLogTraces"), "limit", 201),
  },
  {
    operationId: "searchLogTraces",
    because: "limit 0",
    body: () => withField(requestExample("searchLogTraces"), "limit", 0),
  },
  {
    operationId: "searchLogTraces",
    because: "21 filters",
    body: () => {
      const example = requestExample("searchLogTraces");
      const filter = (example.filters as unknown[])[0];
      return withField(
        example,
        "filters",
        Array.from({ length: 21 }, () => filter),
      );
    },
  },
  {
    operationId: "searchLogTraces",
    because: "a status that does not exist",
    body: () => withField(requestExample("searchLogTraces"), "status", "exploded"),
  },
  {
    operationId: "searchLogTraces",
    because: "a sort that does not exist",
    body: () => withField(requestExample("searchLogTraces"), "sort", "name:asc"),
  },
  {
    operationId: "searchLogSpans",
    because: "limit 201",
    body: () => withField(requestExample("searchLogSpans"), "limit", 201),
  },
  {
    operationId: "searchLogSpans",
    because: "21 filters",
    body: () => {
      const example = requestExample("searchLogSpans");
      const filter = (example.filters as unknown[])[0];
      return withField(
        example,
        "filters",
        Array.from({ length: 21 }, () => filter),
      );
    },
  },
  {
    operationId: "createLogTrace",
    because: "projectId of 19 characters",
    body: () => withField(requestExample("createLogTrace"), "projectId", ID_19),
  },
  {
    operationId: "createLogTrace",
    because: "trace.startedAt before the Timestamp range",
    body: () => withField(requestExample("createLogTrace"), "trace.startedAt", TOO_EARLY),
  },
  {
    operationId: "createLogTrace",
    because: "trace.startedAt after the Timestamp range",
    body: () => withField(requestExample("createLogTrace"), "trace.startedAt", TOO_LATE),
  },
  {
    operationId: "createLogTrace",
    because: "trace.status `aborted` (not accepted on create)",
    body: () => withField(requestExample("createLogTrace"), "trace.status", "aborted"),
  },
  {
    operationId: "createLogTrace",
    because: "an empty spans array",
    body: () => withField(requestExample("createLogTrace"), "spans", []),
  },
  {
    operationId: "createLogTrace",
    because: "a span status `pending` (not accepted for spans)",
    body: () => withField(requestExample("createLogTrace"), "spans.0.status", "pending"),
  },
  {
    operationId: "createLogTrace",
    because: "a span endedAt after the Timestamp range",
    body: () => withField(requestExample("createLogTrace"), "spans.0.endedAt", TOO_LATE),
  },
  {
    operationId: "createLogTrace",
    because: "an unknown top-level field",
    body: () => withField(requestExample("createLogTrace"), "surprise", true),
  },
  {
    operationId: "createLogSpan",
    because: "span.traceId of 19 characters",
    body: () => withField(requestExample("createLogSpan"), "span.traceId", ID_19),
  },
  {
    operationId: "createLogTrace",
    because: "101 trace attributes (a map limit the generator drops; patched in)",
    body: () =>
      withField(
        requestExample("createLogTrace"),
        "trace.attributes",
        Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`key${i}`, i])),
      ),
  },
  {
    operationId: "createDatasetRows",
    because: "a row with 101 values",
    body: () => ({ rows: [{ values: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`c${i}`, "v"])) }] }),
  },
  {
    operationId: "updateDatasetRow",
    because: "no values to change",
    body: () => ({ values: {} }),
  },
  {
    operationId: "updateEvaluator",
    because: "title of 201 characters",
    body: () => ({ title: "t".repeat(201) }),
  },
];

describe("generated zod schemas reject a body that breaks a seed limit", () => {
  it.each(invalidBodies.map((c) => [`${c.operationId}: ${c.because}`, c] as const))("%s", (_, c) => {
    expect(bodySchema(c.operationId).safeParse(c.body()).success).toBe(false);
  });
});

interface InvalidParameter {
  operationId: string;
  in: "query" | "path";
  name: string;
  value: string;
}

const invalidParameters: InvalidParameter[] = [
  { operationId: "getDeployment", in: "query", name: "promptId", value: ID_19 },
  { operationId: "getDeployment", in: "query", name: "deploymentId", value: ID_19 },
  { operationId: "getDeployment", in: "query", name: "deploymentEnvironmentId", value: ID_19 },
  { operationId: "getPrompt", in: "path", name: "promptId", value: ID_19 },
  { operationId: "getPrompt", in: "query", name: "expand", value: "everything" },
  { operationId: "listDatasets", in: "query", name: "limit", value: "201" },
  { operationId: "listDatasets", in: "query", name: "limit", value: "0" },
  { operationId: "listDatasets", in: "query", name: "sort", value: "title:asc" },
  { operationId: "listDatasets", in: "query", name: "createdAfter", value: "-1" },
  { operationId: "listDatasets", in: "query", name: "cursor", value: "" },
  { operationId: "listEvaluators", in: "query", name: "limit", value: "201" },
  { operationId: "listEvaluationResults", in: "query", name: "limit", value: "201" },
  { operationId: "listEvaluationResults", in: "query", name: "grade", value: "maybe" },
  { operationId: "listEvaluationResults", in: "query", name: "sort", value: "grade:asc" },
  { operationId: "createDatasetRows", in: "query", name: "valuesBy", value: "rowId" },
];

describe("generated zod schemas reject a parameter that breaks a seed limit", () => {
  it.each(invalidParameters.map((c) => [`${c.operationId} ${c.in} ${c.name}=${JSON.stringify(c.value)}`, c] as const))(
    "%s",
    (_, c) => {
      const holder = c.in === "path" ? route(c.operationId).request?.params : route(c.operationId).request?.query;
      const schema = holder?.shape?.[c.name];
      expect(schema, `${c.in} parameter ${c.name}`).toBeDefined();
      expect((schema as z.ZodType).safeParse(c.value).success).toBe(false);
    },
  );
});
