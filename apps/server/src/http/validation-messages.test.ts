/**
 * What a 400 says about a bad member of a union (issue 12, "Errors that say what is wrong"). Every `oneOf` of the
 * spec is generated as a zod discriminated union (scripts/hono-takibi-patches.ts), so through the real server:
 * a member whose discriminator value is known but whose fields are not right is reported at the field of that
 * member that is wrong, and an unknown discriminator value at the discriminator, with the allowed values in the
 * message. The cases are keyed by union and checked against the bundled spec, so a new union without a case (or a
 * union that requests start to carry, without a request for it) fails here.
 */
import { openapiDocument, schemas } from "@pharos/contract";
import { describe, expect, it } from "vitest";
import { expectError } from "../testing/expect-error.ts";
import { describeEachStore, type Harness, type Reply } from "../testing/harness.ts";
import { missingId, modelSpan, patchTrace, postTrace, traceBody } from "../testing/log-write-fixtures.ts";

type Node = Record<string, unknown>;
type Detail = { field: string; issue: string };

const componentSchemas = (openapiDocument as unknown as { components: { schemas: Record<string, Node> } }).components
  .schemas;

/** Every `oneOf` of the spec: a component (`MessageContent`) or a component's property (`ImageContent.value`). */
function unionsOfSpec(): Map<string, Node> {
  const unions = new Map<string, Node>();
  const visit = (node: unknown, name: string) => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item, name);
      return;
    }
    if (node === null || typeof node !== "object") return;
    const schema = node as Node;
    if (Array.isArray(schema.oneOf)) unions.set(name, schema);
    for (const [key, child] of Object.entries(schema)) {
      if (key === "properties") {
        for (const [property, sub] of Object.entries(child as Node)) visit(sub, `${name}.${property}`);
      } else if (key !== "examples" && key !== "example") {
        visit(child, name);
      }
    }
  };
  for (const [name, schema] of Object.entries(componentSchemas)) visit(schema, name);
  return unions;
}

const resolve = (schema: Node): Node =>
  typeof schema.$ref === "string"
    ? resolve(componentSchemas[schema.$ref.replace("#/components/schemas/", "")] as Node)
    : schema;

/** The components that request bodies and parameters reach, through `$ref`s. */
function componentsInRequests(): Set<string> {
  const reached = new Set<string>();
  const follow = (node: unknown): void => {
    if (node === null || typeof node !== "object") return;
    const ref = (node as Node).$ref;
    if (typeof ref === "string" && ref.startsWith("#/components/schemas/")) {
      const name = ref.replace("#/components/schemas/", "");
      if (reached.has(name)) return;
      reached.add(name);
      follow(componentSchemas[name]);
    }
    for (const child of Object.values(node)) follow(child);
  };
  const paths = (openapiDocument as unknown as { paths: Record<string, Record<string, Node>> }).paths;
  for (const item of Object.values(paths)) {
    follow(item.parameters);
    for (const operation of Object.values(item)) follow([operation.requestBody, operation.parameters]);
  }
  return reached;
}

/** The values a union's members (members that are unions through theirs) declare for `property`. */
function allowedValues(union: Node, property: string): string[] {
  return [...new Set(valuesOf(union, property))];
}

function valuesOf(union: Node, property: string): string[] {
  return (union.oneOf as Node[]).flatMap((member) => {
    const schema = resolve(member);
    if (Array.isArray(schema.oneOf)) return valuesOf(schema, property);
    const declared = (schema.properties as Record<string, Node>)[property] as Node;
    return (declared.const !== undefined ? [declared.const] : (declared.enum as string[])) as string[];
  });
}

interface UnionCase {
  /** The discriminating property (the spec's `discriminator.propertyName` where it declares one). */
  property: string;
  /** Where a member sits in the request that `send` makes: the prefix of every detail's field. */
  at: string;
  /** Sends `member` in a request of an operation that takes the union; undefined for a union only in responses. */
  send?: (h: Harness, member: unknown) => Promise<Reply>;
  /** A member with a known discriminator value and a missing or invalid field of that member… */
  bad: unknown;
  /** …named in the details (relative to `at`), with the start of its message. */
  badField: string;
  badIssue?: string;
  /** A member whose discriminator value no member takes (or that is missing). */
  unknown: unknown;
  /** Other details the unknown value gets beside the list of allowed values (SpanContent: a custom kind's name). */
  unknownAlso?: Detail[];
}

const content = (part: unknown) => ({
  config: { provider: "openai", model: "gpt-4o-mini" },
  messages: [{ role: "user", content: [part] }],
});
const createPrompt = (h: Harness, part: unknown) =>
  h.request("POST", "/prompts", { body: { projectId: h.projectId, title: "Support", draft: content(part) } });
const image = (value: unknown) => ({ modality: "image", detail: "auto", value });
const pdf = (value: unknown) => ({ modality: "pdf", value, file: { name: "terms.pdf", id: "file-1" } });
const searchTraces = (h: Harness, filter: unknown) =>
  h.request("POST", "/logs/traces", { body: { projectId: h.projectId, filters: [filter] } });
const PART = "draft.messages.0.content.0";

const CASES: Record<string, UnionCase> = {
  Icon: {
    property: "type",
    at: "icon",
    send: (h, icon) => h.request("POST", "/projects", { body: { title: "Support", icon } }),
    bad: { type: "emoji" },
    badField: "value",
    badIssue: "Invalid input: expected string",
    unknown: { type: "gif", value: "x" },
  },
  "ImageContent.value": {
    property: "type",
    at: `${PART}.value`,
    send: (h, value) => createPrompt(h, image(value)),
    bad: { type: "url" },
    badField: "url",
    unknown: { type: "ftp", url: "ftp://example.com/a.png" },
  },
  "PdfContent.value": {
    property: "type",
    at: `${PART}.value`,
    send: (h, value) => createPrompt(h, pdf(value)),
    bad: { type: "base64", base64: "" },
    badField: "base64",
    badIssue: "Too small",
    unknown: { base64: "JVBERi0=" },
  },
  "ReasoningContent.value": {
    property: "type",
    at: `${PART}.value`,
    send: (h, value) => createPrompt(h, { modality: "reasoning", value }),
    bad: { type: "redacted" },
    badField: "data",
    unknown: { type: "hidden", data: "x" },
  },
  "ErrorContent.value": {
    property: "type",
    at: `${PART}.value`,
    send: (h, value) => createPrompt(h, { modality: "error", value }),
    bad: { type: "safety", value: { category: "HARM", probability: "HIGH", blocked: "yes", message: "Blocked." } },
    badField: "value.blocked",
    badIssue: "Invalid input: expected boolean",
    unknown: { type: "timeout", value: {} },
  },
  MessageContent: {
    property: "modality",
    at: PART,
    send: createPrompt,
    bad: { modality: "text" },
    badField: "value",
    badIssue: "Invalid input: expected string",
    unknown: { modality: "video", value: "x" },
  },
  EvaluatorConfig: {
    property: "type",
    at: "config",
    send: (h, config) =>
      h.request("POST", `/prompts/${missingId("prompt")}/evaluators`, {
        body: { projectId: h.projectId, title: "Cheap", datasetId: missingId("dataset"), config },
      }),
    bad: { type: "cost", operator: "less-than" },
    badField: "threshold",
    badIssue: "Invalid input: expected number",
    unknown: { type: "vibes", value: "x" },
  },
  DatasetColumnInput: {
    property: "type",
    at: "columns.0",
    send: (h, column) =>
      h.request("POST", "/datasets", { body: { projectId: h.projectId, title: "Questions", columns: [column] } }),
    bad: { name: "draft", type: "prompt" },
    badField: "settings",
    unknown: { name: "total", type: "formula" },
  },
  // Only in responses: the server never parses it, so its case runs against the generated schema alone.
  DatasetColumn: {
    property: "type",
    at: "",
    bad: { id: "column_01JD8Q5B4C6D8E0F2G4H6J8K0M", name: "q", type: "static", createdAt: 1732190400000 },
    badField: "settings",
    unknown: { id: "column_01JD8Q5B4C6D8E0F2G4H6J8K0M", name: "q", type: "formula" },
  },
  // Reached through LogSpanContent (anyOf: SpanContent or a custom kind) and LogSpanContentInput (or JSON text):
  // the validation hook reports the member the content was meant as. An unknown type is a custom kind, so the
  // details for a type that is neither also give the rule of a custom kind's name.
  SpanContent: {
    property: "type",
    at: "spans.0.content",
    send: (h, spanContent) => postTrace(h, traceBody(h, {}, [modelSpan({ content: spanContent })])),
    bad: (() => {
      const { provider: _, ...withoutProvider } = modelSpan().content;
      return withoutProvider;
    })(),
    badField: "provider",
    badIssue: "Invalid input: expected string",
    unknown: { type: "1st-kind", input: "{}", output: "{}" },
    unknownAlso: [{ field: "spans.0.content.type", issue: "Invalid string: must match pattern" }],
  },
  LogAttributeOperation: {
    property: "operation",
    at: "logTrace.attributes.0",
    send: (h, operation) =>
      patchTrace(h, { projectId: h.projectId, traceId: missingId("trace"), logTrace: { attributes: [operation] } }),
    bad: { operation: "delete" },
    badField: "key",
    badIssue: "Invalid input: expected string",
    unknown: { operation: "rename", key: "a" },
  },
  LogFilter: {
    property: "column",
    at: "filters.0",
    send: searchTraces,
    bad: { column: "latency", operator: "gt", value: "slow" },
    badField: "value",
    badIssue: "Invalid input: expected number",
    unknown: { column: "duration", operator: "gt", value: 1 },
  },
  LogTextFilter: {
    property: "operator",
    at: "filters.0",
    send: searchTraces,
    bad: { column: "name", operator: "in", value: "checkout" },
    badField: "value",
    badIssue: "Invalid input: expected array",
    unknown: { column: "name", operator: "gt", value: "checkout" },
  },
  LogStatusFilter: {
    property: "operator",
    at: "filters.0",
    send: searchTraces,
    bad: { column: "status", operator: "equals", value: "broken" },
    badField: "value",
    badIssue: "Invalid option",
    unknown: { column: "status", operator: "contains", value: "failure" },
  },
  LogTagsFilter: {
    property: "operator",
    at: "filters.0",
    send: searchTraces,
    bad: { column: "tags", operator: "in", value: [] },
    badField: "value",
    badIssue: "Too small",
    unknown: { column: "tags", operator: "equals", value: "production" },
  },
  LogAttributeFilter: {
    property: "operator",
    at: "filters.0",
    send: searchTraces,
    bad: { column: "attributes", operator: "gte", key: "user.age", value: "18" },
    badField: "value",
    badIssue: "Invalid input: expected number",
    unknown: { column: "attributes", operator: "between", key: "user.age", value: [18, 65] },
  },
  ScoreRule: {
    property: "type",
    at: "rule",
    send: (h, rule) =>
      h.request("POST", `/projects/${h.projectId}/score-configs`, { body: { name: "helpfulness", rule } }),
    bad: { type: "categorical" },
    badField: "categories",
    badIssue: "Invalid input: expected array",
    unknown: { type: "ordinal", levels: 5 },
  },
};

const unions = unionsOfSpec();
const field = (c: UnionCase, name: string) => [c.at, name].filter(Boolean).join(".");
/** zod's message for an unknown discriminator value, which lists the allowed ones. */
const listing = (values: string[]) =>
  `Invalid discriminator value. Expected ${values.map((v) => `'${v}'`).join(" | ")}`;

describe("the cases", () => {
  it("cover every union of the spec, each by its discriminator", () => {
    expect(Object.keys(CASES).sort()).toEqual([...unions.keys()].sort());
    for (const [name, union] of unions) {
      const declared = (union.discriminator as Node | undefined)?.propertyName;
      // A union without one (LogFilter) is generated as discriminated by the property its members tell apart.
      if (declared !== undefined) expect(CASES[name]?.property, name).toBe(declared);
    }
  });

  it("send every union that a request can carry, and only those", () => {
    const inRequests = componentsInRequests();
    for (const [name, c] of Object.entries(CASES)) {
      expect(c.send !== undefined, name).toBe(inRequests.has(name.split(".")[0] as string));
    }
  });
});

describeEachStore("validation messages of unions", (use) => {
  const sent = Object.entries(CASES).filter(([, c]) => c.send !== undefined);

  it.each(sent)("%s: a bad member is reported at its field", async (name, c) => {
    const reply = await c.send?.(use(), c.bad);
    await expectError(reply as Reply, 400, "VALIDATION_ERROR");
    const details: Detail[] = (reply as Reply).body.error.details;
    expect(details, name).toContainEqual({
      field: field(c, c.badField),
      issue: c.badIssue ? expect.stringContaining(c.badIssue) : expect.any(String),
    });
    expect(details.filter((d) => d.issue === "Invalid input" && d.field === c.at)).toEqual([]);
  });

  it.each(sent)("%s: an unknown discriminator value is reported with the allowed values", async (name, c) => {
    const reply = await c.send?.(use(), c.unknown);
    await expectError(reply as Reply, 400, "VALIDATION_ERROR");
    const allowed = allowedValues(unions.get(name) as Node, c.property);
    expect((reply as Reply).body.error.details).toEqual([
      { field: field(c, c.property), issue: listing(allowed) },
      ...(c.unknownAlso ?? []).map((d) => ({ ...d, issue: expect.stringContaining(d.issue) })),
    ]);
  });
});

describe("validation messages of unions only in responses", () => {
  it("DatasetColumn: the generated schema reports a bad member at its field and lists the allowed values", () => {
    const c = CASES.DatasetColumn as UnionCase;
    const issues = (value: unknown) =>
      schemas.DatasetColumnSchema.safeParse(value).error?.issues.map((i) => ({
        field: i.path.join("."),
        issue: i.message,
      }));
    expect(issues(c.bad)).toEqual([
      { field: "settings", issue: expect.stringContaining("Invalid input") },
      expect.anything(),
    ]);
    expect(issues(c.unknown)).toEqual([
      { field: "type", issue: listing(allowedValues(unions.get("DatasetColumn") as Node, "type")) },
    ]);
  });
});
