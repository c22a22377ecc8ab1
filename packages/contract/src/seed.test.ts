/**
 * SEED-API.md as a table: every seed operation, parameter, required field, limit and enum. A later edit of
 * openapi/ that drops or loosens a seed rule fails here.
 */
import { describe, expect, it } from "vitest";
import {
  componentSchema,
  discriminatorValues,
  fieldOf,
  type Operation,
  operationsOf,
  parametersOf,
  requestSchemaOf,
  resolveSchema,
  responseSchemaOf,
  responsesOf,
  type SchemaObject,
} from "./testing/spec.ts";

interface Rule {
  type?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  enum?: string[];
  default?: unknown;
}

const ENTITY_ID: Rule = { type: "string", minLength: 20, maxLength: 80 };
const TIMESTAMP: Rule = { type: "integer", minimum: 1672511400000, maximum: 33229420200000 };
const LOG_STATUS = ["success", "failure", "aborted", "cancelled", "pending", "unknown"];
const CREATED_SORT = ["createdAt:asc", "createdAt:desc"];
const PAGE_LIMIT: Rule = { type: "integer", maximum: 200 };
const CURSOR: Rule = { type: "string", minLength: 1 };
const CREATED_BOUND: Rule = { type: "integer", minimum: 0 };

/** field → rule; a leading `?` marks a field its parent does not require; otherwise the parent requires it. */
type Fields = Record<string, Rule>;

interface SeedOperation {
  method: Operation["method"];
  path: string;
  query?: Fields;
  path_?: Fields;
  body?: Fields;
  success: number;
  response?: Fields;
  errors?: number[];
}

const SPAN_FIELDS = (at: string): Fields => ({
  [`${at}startedAt`]: TIMESTAMP,
  [`${at}endedAt`]: TIMESTAMP,
  [`${at}name`]: { type: "string" },
  [`${at}status`]: { enum: ["success", "failure", "unknown"] },
  [`${at}content`]: {},
  [`?${at}promptId`]: ENTITY_ID,
  [`?${at}deploymentId`]: ENTITY_ID,
  [`?${at}runEvaluation`]: { type: "boolean" },
  [`?${at}parentReferenceId`]: { type: "string" },
  [`?${at}referenceId`]: { type: "string" },
  [`?${at}sessionId`]: { type: "string" },
  [`?${at}attributes`]: { type: "object" },
  [`?${at}tags`]: { type: "array" },
});

const SEARCH_FIELDS: Fields = {
  projectId: ENTITY_ID,
  "?startedAfter": { type: "integer" },
  "?startedBefore": { type: "integer" },
  "?status": { enum: LOG_STATUS },
  "?name": { type: "string" },
  "?referenceId": { type: "string" },
  "?sessionId": { type: "string" },
  "?filters": { type: "array", maxItems: 20 },
  "?filters[].column": { type: "string" },
  "?filters[].operator": { type: "string" },
  "?sort": { enum: ["startedAt:asc", "startedAt:desc"], default: "startedAt:desc" },
  "?limit": { type: "integer", minimum: 1, maximum: 200, default: 50 },
  "?cursor": { type: "string" },
};

const DEPLOYMENT_FIELDS: Fields = {
  id: { type: "string" },
  createdAt: TIMESTAMP,
  updatedAt: TIMESTAMP,
  createdByUserId: ENTITY_ID,
  updatedByUserId: ENTITY_ID,
  projectId: ENTITY_ID,
  promptId: ENTITY_ID,
  deploymentEnvironmentId: ENTITY_ID,
  "prompt.config": { type: "object" },
  "?prompt.config.providerName": { type: "string", minLength: 1 },
  "?prompt.config.providerId": ENTITY_ID,
  "?prompt.config.model": { type: "string", minLength: 1 },
  "?prompt.config.settings": { type: "object" },
  "prompt.messages": { type: "array" },
  "prompt.messages[].role": { enum: ["system", "user", "assistant", "tool"] },
  "prompt.messages[].content": { type: "array" },
  "prompt.tools": { type: "array" },
  "prompt.variables": { type: "array" },
  "prompt.variables[].name": { type: "string" },
  "prompt.variables[].modality": { enum: ["text", "image", "pdf", "api", "prompt"] },
};

const PROMPT_FIELDS: Fields = {
  id: ENTITY_ID,
  title: { type: "string", minLength: 1, maxLength: 50 },
  icon: {},
  "icon.type": { type: "string" },
  "icon.value": { type: "string" },
  projectId: ENTITY_ID,
  createdAt: TIMESTAMP,
  updatedAt: TIMESTAMP,
  defaultPlaygroundId: ENTITY_ID,
  "draft.config": { type: "object" },
  "draft.config.settings": { type: "object" },
  "draft.messages": { type: "array" },
  "draft.messages[].content": { type: "array" },
  "draft.tools": { type: "array" },
  "draft.variables": { type: "object" },
  "?contentLinks": { type: "object" },
  "?defaultPlayground": {},
  "?defaultPlayground.id": ENTITY_ID,
  "?defaultPlayground.messages": { type: "array" },
  "?defaultPlayground.variables": { type: "object" },
  "?defaultPlayground.title": { type: "string" },
};

const EVALUATOR_FIELDS: Fields = {
  id: ENTITY_ID,
  promptId: ENTITY_ID,
  datasetId: ENTITY_ID,
  title: { type: "string", minLength: 1, maxLength: 200 },
  "config.type": {},
  status: { enum: ["active", "archived"] },
  createdAt: TIMESTAMP,
  updatedAt: TIMESTAMP,
};

const RUN_FIELDS: Fields = {
  runId: ENTITY_ID,
  evaluatorId: ENTITY_ID,
  status: { enum: ["queued", "running", "completed", "failed", "cancelled", "cancelling"] },
  "progress.totalRows": { type: "integer" },
  "progress.completedRows": { type: "integer" },
  "progress.failedRows": { type: "integer" },
  "progress.percent": { type: "number" },
  "metrics.passRuns": {},
  "metrics.failRuns": {},
  "metrics.unknownRuns": {},
  "metrics.totalCost": { type: "number" },
  "metrics.totalLatency": { type: "number" },
  "metrics.totalTokenCount": {},
  "timeline.submittedAt": TIMESTAMP,
  "timeline.startedAt": {},
  "timeline.finishedAt": {},
  "?datasetId": ENTITY_ID,
};

const EVALUATOR_CONFIG: Fields = { "config.type": {}, "config.value": { type: "string" } };

const SEED: SeedOperation[] = [
  {
    method: "get",
    path: "/deployments",
    query: { promptId: ENTITY_ID, deploymentId: {}, "?deploymentEnvironmentId": ENTITY_ID },
    success: 200,
    response: DEPLOYMENT_FIELDS,
    errors: [400, 401, 403, 404, 500],
  },
  {
    method: "post",
    path: "/logs/traces",
    body: SEARCH_FIELDS,
    success: 200,
    response: {
      pagination: {},
      traces: { type: "array", maxItems: 200 },
      "traces[].id": ENTITY_ID,
      "traces[].name": { type: "string" },
      "traces[].status": { enum: LOG_STATUS },
      "traces[].startedAt": TIMESTAMP,
      "traces[].endedAt": TIMESTAMP,
      "traces[].latency": { type: "number" },
      "traces[].referenceId": { type: "string" },
      "traces[].sessionId": { type: "string" },
      "traces[].attributes": { type: "object" },
      "traces[].tags": { type: "array" },
      "traces[].totalCost": { type: "number" },
      "traces[].totalInputTokens": {},
      "traces[].totalOutputTokens": {},
      "traces[].spanIds": { type: "array" },
      "traces[].createdAt": TIMESTAMP,
      "traces[].updatedAt": TIMESTAMP,
    },
  },
  {
    method: "post",
    path: "/logs/spans",
    body: {
      ...SEARCH_FIELDS,
      "?promptId": ENTITY_ID,
      "?model": { type: "string" },
      "?provider": { type: "string" },
    },
    success: 200,
    response: {
      pagination: {},
      spans: { type: "array", maxItems: 200 },
      ...Object.fromEntries(
        [
          "id",
          "name",
          "contentType",
          "latency",
          "logTraceId",
          "promptId",
          "referenceId",
          "parentReferenceId",
          "sessionId",
          "cost",
          "promptTokens",
          "completionTokens",
          "totalTokens",
          "content",
          "parsedContent",
          "attributes",
          "tags",
          "events",
        ].map((f) => [`spans[].${f}`, {}]),
      ),
      "spans[].startedAt": TIMESTAMP,
      "spans[].endedAt": TIMESTAMP,
      "spans[].createdAt": TIMESTAMP,
      "spans[].updatedAt": TIMESTAMP,
    },
  },
  {
    method: "post",
    path: "/logs/trace",
    body: {
      projectId: ENTITY_ID,
      trace: { type: "object" },
      "trace.startedAt": TIMESTAMP,
      "trace.name": { type: "string" },
      "trace.status": { enum: ["success", "failure", "pending", "unknown"] },
      "?trace.endedAt": TIMESTAMP,
      "?trace.referenceId": { type: "string" },
      "?trace.sessionId": { type: "string" },
      "?trace.attributes": { type: "object" },
      "?trace.tags": { type: "array" },
      "?trace.tags[]": { type: "string" },
      "?spans": { type: "array", minItems: 1 },
      ...SPAN_FIELDS("spans[]."),
    },
    success: 200,
    response: { traceId: ENTITY_ID, spanIds: { type: "array" }, "spanIds[]": ENTITY_ID },
  },
  {
    method: "post",
    path: "/logs/span",
    body: {
      projectId: ENTITY_ID,
      span: { type: "object" },
      ...SPAN_FIELDS("span."),
      "?span.traceId": ENTITY_ID,
      "?span.traceReferenceId": { type: "string" },
    },
    success: 200,
    response: { spanId: ENTITY_ID },
  },
  {
    method: "post",
    path: "/prompts",
    body: {
      projectId: ENTITY_ID,
      "?title": { type: "string", minLength: 1, maxLength: 50 },
      "?icon": {},
      "?draft": { type: "object" },
      "?draft.config.provider": { type: "string" },
      "?draft.config.model": { type: "string" },
      "?draft.config.settings": { type: "object" },
      "?draft.messages": { type: "array" },
      "?draft.messages[].content[].modality": {},
      "?draft.tools": { type: "array" },
    },
    success: 201,
    response: PROMPT_FIELDS,
  },
  {
    method: "get",
    path: "/prompts/{promptId}",
    path_: { promptId: ENTITY_ID },
    query: { "?expand": { enum: ["playground"] }, "?fields": { type: "string", minLength: 1 } },
    success: 200,
  },
  {
    method: "post",
    path: "/prompts/{promptId}/evaluators",
    path_: { promptId: ENTITY_ID },
    body: {
      projectId: ENTITY_ID,
      title: { type: "string", minLength: 1, maxLength: 200 },
      datasetId: ENTITY_ID,
      config: {},
      ...EVALUATOR_CONFIG,
    },
    success: 201,
    response: { ...EVALUATOR_FIELDS, ...EVALUATOR_CONFIG },
  },
  {
    method: "get",
    path: "/prompts/{promptId}/evaluators",
    path_: { promptId: ENTITY_ID },
    query: {
      "?limit": PAGE_LIMIT,
      "?cursor": CURSOR,
      "?sort": { enum: CREATED_SORT },
      "?createdAfter": CREATED_BOUND,
      "?createdBefore": CREATED_BOUND,
    },
    success: 200,
    response: {
      pagination: {},
      evaluators: { type: "array" },
      ...Object.fromEntries(
        ["id", "promptId", "title", "datasetId", "status", "createdAt", "updatedAt"].map((f) => [
          `evaluators[].${f}`,
          {},
        ]),
      ),
    },
  },
  {
    method: "get",
    path: "/prompts/{promptId}/evaluators/{evaluatorId}",
    path_: { promptId: ENTITY_ID, evaluatorId: ENTITY_ID },
    success: 200,
    response: EVALUATOR_FIELDS,
  },
  {
    method: "patch",
    path: "/prompts/{promptId}/evaluators/{evaluatorId}",
    path_: { promptId: ENTITY_ID, evaluatorId: ENTITY_ID },
    body: {
      "?title": { type: "string", minLength: 1, maxLength: 200 },
      "?datasetId": ENTITY_ID,
      "?config": {},
      "?config.value": { type: "string" },
    },
    success: 200,
    response: EVALUATOR_FIELDS,
  },
  {
    method: "post",
    path: "/prompts/{promptId}/evaluations",
    path_: { promptId: ENTITY_ID },
    body: { "?evaluatorId": ENTITY_ID, "?datasetId": ENTITY_ID },
    success: 202,
    response: RUN_FIELDS,
  },
  {
    method: "get",
    path: "/prompts/{promptId}/evaluations/{evaluationId}/results",
    path_: { promptId: ENTITY_ID, evaluationId: ENTITY_ID },
    query: {
      "?grade": { enum: ["pass", "fail", "unknown"] },
      "?expand": { enum: ["row"] },
      "?sort": { enum: ["createdAt:asc", "createdAt:desc", "score:asc", "score:desc"] },
      "?limit": PAGE_LIMIT,
      "?cursor": CURSOR,
    },
    success: 200,
    response: {
      pagination: {},
      results: { type: "array" },
      "results[].id": ENTITY_ID,
      "results[].rowId": ENTITY_ID,
      "results[].grade": { enum: ["pass", "fail", "unknown"] },
      "results[].score": { type: "number" },
      "results[].reason": { type: "string" },
      "results[].cost": { type: "number" },
      "results[].latency": { type: "number" },
      "results[].tokenCount": {},
      "results[].createdAt": TIMESTAMP,
      "?results[].row.values": { type: "object" },
    },
  },
  {
    method: "get",
    path: "/datasets",
    query: {
      projectId: ENTITY_ID,
      "?sort": { enum: CREATED_SORT },
      "?createdAfter": CREATED_BOUND,
      "?createdBefore": CREATED_BOUND,
      "?limit": PAGE_LIMIT,
      "?cursor": CURSOR,
    },
    success: 200,
    response: { pagination: {}, datasets: { type: "array" }, "datasets[].rowCount": { minimum: 0 } },
  },
  {
    method: "get",
    path: "/datasets/{datasetId}",
    path_: { datasetId: ENTITY_ID },
    success: 200,
    response: {
      id: ENTITY_ID,
      projectId: ENTITY_ID,
      title: { type: "string", minLength: 1, maxLength: 50 },
      icon: {},
      description: { type: "string", maxLength: 100 },
      rowCount: { type: "integer", minimum: 0 },
      createdAt: TIMESTAMP,
      updatedAt: TIMESTAMP,
      columns: { type: "array" },
      "columns[].id": {},
      "columns[].name": { type: "string" },
      "columns[].type": {},
      "columns[].createdAt": TIMESTAMP,
      "columns[].updatedAt": TIMESTAMP,
    },
  },
  {
    method: "post",
    path: "/datasets/{datasetId}/rows",
    path_: { datasetId: ENTITY_ID },
    query: { "?valuesBy": { enum: ["columnId", "columnName"] } },
    body: { rows: { type: "array", minItems: 1, maxItems: 100 }, "rows[].values": { type: "object" } },
    success: 201,
    response: {
      rows: { type: "array" },
      "rows[].id": ENTITY_ID,
      "rows[].values": { type: "object" },
      "rows[].createdAt": TIMESTAMP,
      "rows[].updatedAt": TIMESTAMP,
    },
  },
];

function expectRule(schema: SchemaObject, rule: Rule, where: string): void {
  const s = resolveSchema(schema);
  if (rule.type) {
    const types = ([] as unknown[]).concat(s.type ?? []);
    // `number` admits integers; a seed "number" is satisfied by either.
    const ok = types.includes(rule.type) || (rule.type === "number" && types.includes("integer"));
    expect(ok, `${where}: type ${JSON.stringify(s.type)} should be ${rule.type}`).toBe(true);
  }
  for (const key of ["minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems", "default"] as const) {
    if (rule[key] !== undefined) expect(s[key], `${where}: ${key}`).toEqual(rule[key]);
  }
  if (rule.enum) expect([...((s.enum as string[]) ?? [])].sort(), `${where}: enum`).toEqual([...rule.enum].sort());
}

function checkFields(root: SchemaObject, fields: Fields, where: string): void {
  for (const [key, rule] of Object.entries(fields)) {
    const optional = key.startsWith("?");
    const path = optional ? key.slice(1) : key;
    const field = fieldOf(root, path);
    if (!optional) expect(field.required, `${where}: ${path} must be required`).toBe(true);
    expectRule(field.schema, rule, `${where}: ${path}`);
  }
}

const byRoute = new Map(operationsOf().map((op) => [`${op.method} ${op.path}`, op]));

describe("every seed operation is in the spec with the seed's rules", () => {
  describe.each(SEED.map((seed) => [`${seed.method.toUpperCase()} ${seed.path}`, seed] as const))("%s", (_, seed) => {
    const op = () => {
      const found = byRoute.get(`${seed.method} ${seed.path}`);
      if (!found) throw new Error(`${seed.method.toUpperCase()} ${seed.path} is missing from the spec`);
      return found;
    };

    it("exists", () => {
      expect(byRoute.has(`${seed.method} ${seed.path}`)).toBe(true);
    });

    it("has the seed's parameters", () => {
      const params = parametersOf(op());
      for (const [location, fields] of [
        ["query", seed.query],
        ["path", seed.path_],
      ] as const) {
        for (const [key, rule] of Object.entries(fields ?? {})) {
          const name = key.replace(/^\?/, "");
          const param = params.get(`${location}:${name}`);
          expect(param, `${location} parameter ${name}`).toBeDefined();
          expect(Boolean(param?.required), `${name} required`).toBe(!key.startsWith("?"));
          expectRule(param?.schema as SchemaObject, rule, `${location} ${name}`);
        }
      }
    });

    if (seed.body) {
      const body = seed.body;
      it("has the seed's body fields and limits", () => {
        const schema = requestSchemaOf(op());
        expect(schema).toBeDefined();
        checkFields(schema as SchemaObject, body, "body");
      });
    }

    it(`answers ${seed.success} with the seed's response fields`, () => {
      expect(responsesOf(op()).get(String(seed.success)), `response ${seed.success}`).toBeDefined();
      if (seed.response) {
        checkFields(responseSchemaOf(op(), String(seed.success)) as SchemaObject, seed.response, "response");
      }
    });

    it("declares its error responses with the error schema", () => {
      for (const status of seed.errors ?? [400, 401, 403, 500]) {
        const schema = responseSchemaOf(op(), String(status));
        expect(schema, `response ${status}`).toBeDefined();
        expect(resolveSchema(schema)).toBe(componentSchema("Error"));
      }
    });
  });
});

describe("the seed's common types and enums", () => {
  it("EntityId is a string of 20 to 80 characters", () =>
    expectRule(componentSchema("EntityId"), ENTITY_ID, "EntityId"));
  it("Timestamp is an int64 in the seed's range", () => {
    expectRule(componentSchema("Timestamp"), TIMESTAMP, "Timestamp");
    expect(componentSchema("Timestamp").format).toBe("int64");
  });
  it("Pagination has limit, returned, hasMore and nextCursor", () =>
    checkFields(
      componentSchema("Pagination"),
      { limit: { type: "integer" }, returned: { type: "integer" }, hasMore: { type: "boolean" }, nextCursor: {} },
      "Pagination",
    ));
  it("Icon has type and value, with an emoji variant", () => {
    expect(discriminatorValues(componentSchema("Icon"), "type")).toContain("emoji");
    checkFields(componentSchema("Icon"), { type: { type: "string" }, value: { type: "string" } }, "Icon");
  });
  it("the error body carries code, message and details with the seed's codes", () => {
    checkFields(
      componentSchema("Error"),
      {
        "error.code": {
          enum: [
            "VALIDATION_ERROR",
            "INVALID_CURSOR",
            "AUTHENTICATION_REQUIRED",
            "FORBIDDEN",
            "RESOURCE_NOT_FOUND",
            "CONFLICT",
            "PAYLOAD_TOO_LARGE",
            "RATE_LIMITED",
            "INTERNAL_ERROR",
            // Beyond the seed's codes, each with its decision record:
            "OVERLOADED", // docs/adr/0010-overload-and-shutdown.md
            "PROVIDER_ERROR", // docs/adr/0025-playground-runs-and-code-editors.md
          ],
        },
        "error.message": { type: "string" },
        "?error.details[].field": { type: "string" },
        "?error.details[].issue": { type: "string" },
      },
      "Error",
    );
  });

  const deployment = () => responseSchemaOf(byRoute.get("get /deployments") as Operation, "200") as SchemaObject;
  it("message content is discriminated by modality with the seed's eight kinds", () => {
    const content = fieldOf(deployment(), "prompt.messages[].content[]").schema;
    expect(discriminatorValues(content, "modality").sort()).toEqual(
      ["text", "image", "pdf", "tool-call", "tool-response", "reasoning", "error", "search-result"].sort(),
    );
  });
  it("prompt tools are discriminated by type, only `function`", () => {
    const tool = fieldOf(deployment(), "prompt.tools[]").schema;
    expect(discriminatorValues(tool, "type")).toEqual(["function"]);
    checkFields(
      tool,
      {
        "definition.schema.name": { type: "string" },
        "?definition.schema.description": { type: "string" },
        "?definition.schema.strict": { type: "boolean" },
        "?request.type": { enum: ["http"] },
        "?request.url": { type: "string" },
        "?request.retry.maxAttempts": {},
        "?request.retry.initialDelay": {},
        "?request.retry.exponentialFactor": {},
      },
      "PromptTool",
    );
  });
  it("image content has the seed's detail levels and pdf content a file", () => {
    const content = fieldOf(deployment(), "prompt.messages[].content[]").schema;
    checkFields(
      content,
      {
        detail: { enum: ["low", "medium", "high", "auto"] },
        "file.name": { type: "string" },
        "file.id": { type: "string" },
        index: { type: "integer", minimum: 0 },
        arguments: { type: "string" },
        data: { type: "string" },
      },
      "MessageContent",
    );
  });
  it("span content is discriminated by type with the seed's eight types", () => {
    const op = byRoute.get("post /logs/trace") as Operation;
    const content = fieldOf(requestSchemaOf(op), "spans[].content").schema;
    const types = discriminatorValues(content, "type");
    for (const type of ["Model", "ModelStream", "Function", "Tool", "Guardrail", "Retrieval", "Embeddings", "Other"]) {
      expect(types).toContain(type);
    }
    const model = fieldOf(content, "provider");
    expect(model.required).toBe(true);
    checkFields(
      content,
      {
        provider: { type: "string" },
        model: { type: "string" },
        input: { type: "string" },
        output: { type: "string" },
        "?cost": { type: "number" },
        "?variables": { type: "object" },
      },
      "ModelContent",
    );
  });
});
