/**
 * The drift test (DESIGN.md, "The contract pipeline"): the OpenAPI document the running app emits from its
 * registered routes, compared with the bundled spec by meaning, operation by operation: parameters (name, in,
 * required, schema), request body and responses (statuses, media types, headers, schemas). Equivalent spellings
 * are canonicalised (canonical.ts); every remaining difference must be covered by an allowance below that says
 * why it exists and names the tests that prove the spec's rule holds anyway.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { routeDefinitions } from "@pharos/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalOperation, type Difference, diff } from "./canonical.ts";
import { bundle, type Json, operationsOf, type SpecOperation, specOperationById } from "./spec.ts";
import { openInProcessApp } from "./target.ts";

interface Allowance {
  id: string;
  why: string;
  matches(difference: Difference): boolean;
  /** Tests (`file > describe > test`) showing the server enforces the spec's rule although the document lacks it. */
  provedBy: string[];
}

const inRequest = (d: Difference) => d.path.startsWith("/requestBody/") || d.path.startsWith("/parameters/");
const inResponse = (d: Difference) => d.path.startsWith("/responses/");
const lastKeyword = (d: Difference) => d.path.split("/").at(-1);
/** The spec states a constraint that the emitted document leaves out. */
const dropped = (keyword: string) => (d: Difference) =>
  lastKeyword(d) === keyword && d.spec !== undefined && d.emitted === undefined;
/** The emitted document requires a property that the spec leaves optional. */
const optionalEmittedAsRequired = (d: Difference) =>
  /\/required\/[^/]+$/.test(d.path) && d.spec === false && d.emitted === true;

const RESPONSES_VALIDATED = [
  "validator.test.ts > checkResponse > rejects a body that breaks the schema: a missing field, an extra field, a wrong type",
  "validator.test.ts > the validating middleware > makes the call fail on a non-conforming answer",
];
const ZOD_OPENAPI_EXACT_OPTIONAL =
  "@hono/zod-openapi 1.6 (zod-to-openapi) documents zod 4's `.exactOptional()`, which hono-takibi generates for every optional property, as required; at run time zod treats such a property as optional.";

const ALLOWANCES: Allowance[] = [
  {
    id: "exact-optional-request",
    why: `${ZOD_OPENAPI_EXACT_OPTIONAL} Requests that leave the properties out are accepted.`,
    matches: (d) => inRequest(d) && optionalEmittedAsRequired(d),
    provedBy: [
      "projects.test.ts > createProject > 201: creates a project with the default icon",
      "projects.test.ts > updateProject > 200: replaces the fields given and keeps the others",
      "prompts.test.ts > createPrompt > 201: creates a prompt from its project alone, with the documented defaults",
      "prompts.test.ts > updatePrompt > 200: changes only the parts given",
    ],
  },
  {
    id: "exact-optional-response",
    why: `${ZOD_OPENAPI_EXACT_OPTIONAL} For responses this only makes the server's own type check stricter; the kit validates every response against the bundle.`,
    matches: (d) => inResponse(d) && optionalEmittedAsRequired(d),
    provedBy: RESPONSES_VALIDATED,
  },
  {
    id: "max-properties-refinement",
    why: "@hono/zod-openapi drops `maxProperties`; the generated zod enforces it with a refinement (DESIGN.md, known codegen gaps).",
    matches: dropped("maxProperties"),
    provedBy: [
      "prompts.test.ts > createPrompt > 400 VALIDATION_ERROR for settings over 50 keys and tool parameters over 64 keys",
      "providers.test.ts > createProvider > 400 VALIDATION_ERROR for a missing, relative, too long or non-http(s) baseUrl, a bad kind, a missing or bad name, bad credentials (empty key, unknown field, header names, over 20 headers) and an unknown field",
      ...RESPONSES_VALIDATED,
    ],
  },
  {
    id: "min-properties-refinement",
    why: "`minProperties: 1` of the update bodies (at least one field) is a zod refinement, which @hono/zod-openapi cannot document.",
    matches: dropped("minProperties"),
    provedBy: [
      "projects.test.ts > updateProject > 400 VALIDATION_ERROR for an empty update and for an empty title",
      "prompts.test.ts > updatePrompt > 400 VALIDATION_ERROR for an empty update, for `playgrounds` and for a bad part",
      "evaluators.test.ts > updateEvaluator > 400 VALIDATION_ERROR for an empty update and for a bad status",
      "datasets.test.ts > updateDataset > 400 VALIDATION_ERROR for an empty update, a title of 0 or 51 characters, a description over 100 and fields it cannot change; the dataset is left as it was",
      "datasets.test.ts > updateDatasetColumn > 400 VALIDATION_ERROR for an empty update and for settings of another type",
    ],
  },
  {
    id: "property-names-request",
    why: "Key rules of maps (`propertyNames`) are zod refinements, which @hono/zod-openapi cannot document; in requests (provider credential headers) the refinement still answers a bad name with 400.",
    matches: (d) => inRequest(d) && d.path.includes("/propertyNames") && d.emitted === undefined,
    provedBy: [
      "providers.test.ts > createProvider > 400 VALIDATION_ERROR for a missing, relative, too long or non-http(s) baseUrl, a bad kind, a missing or bad name, bad credentials (empty key, unknown field, header names, over 20 headers) and an unknown field",
      "providers.test.ts > updateProvider > 400 VALIDATION_ERROR for an empty update, a kind change, a bad baseUrl, name or credentials, and baseUrl null on openai-compatible; the record is left as it was",
    ],
  },
  {
    id: "property-names-response",
    why: "Key rules of maps (`propertyNames`) are zod refinements, which @hono/zod-openapi cannot document; in responses (derived variable maps, stored settings) the kit validates every response against the bundle.",
    matches: (d) => inResponse(d) && d.path.includes("/propertyNames") && d.emitted === undefined,
    provedBy: RESPONSES_VALIDATED,
  },
  {
    id: "conditional-headers-read-by-handlers",
    why: "Conditional headers (If-None-Match) are served without a zod validator (apps/server/src/routes/define-route.ts): no value of theirs is invalid, and the handler reads them; such a validator cost a tenth of a GET /deployments.",
    matches: (d) => d.path === "/parameters/header:If-None-Match" && d.emitted === undefined,
    provedBy: [
      "deployments.test.ts > getDeployment > 200 with a strong ETag and Cache-Control: private, no-cache; 304 with no body when If-None-Match lists it",
      "deployments.test.ts > getDeployment > 200 again with a new ETag once a newer deployment is the environment's latest",
    ],
  },
];

const registered = routeDefinitions.map((definition) => definition.operationId as string);
let emitted: Map<string, SpecOperation>;
let emittedDocument: Json;
let close: () => Promise<void>;

beforeAll(async () => {
  const opened = await openInProcessApp();
  close = opened.close;
  emittedDocument = opened.app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: { title: "Pharos (emitted by the app)", version: "2.0.0" },
  }) as unknown as Json;
  emitted = new Map(operationsOf(emittedDocument, "/v2").map((op) => [op.operationId, op]));
});
afterAll(async () => {
  await close?.();
});

function differencesOf(operationId: string): Difference[] {
  const spec = specOperationById.get(operationId);
  const mine = emitted.get(operationId);
  if (!spec || !mine) throw new Error(`${operationId} is missing from the spec or the emitted document`);
  return diff(operationId, canonicalOperation(bundle, spec), canonicalOperation(emittedDocument, mine));
}

describe("drift: the emitted document against the bundle", () => {
  it("emits exactly the registered operations, each on the spec's method and path", () => {
    expect([...emitted.keys()].sort()).toEqual([...registered].sort());
    for (const [id, op] of emitted) {
      const spec = specOperationById.get(id);
      expect({ method: op.method, path: op.path }, id).toEqual({ method: spec?.method, path: spec?.path });
    }
  });

  it.each(registered)("%s: parameters, request body and responses match by meaning", (operationId) => {
    const unexplained = differencesOf(operationId).filter((d) => !ALLOWANCES.some((a) => a.matches(d)));
    const shown = unexplained.map(
      (d) => `${d.path}: spec ${JSON.stringify(d.spec)}, emitted ${JSON.stringify(d.emitted)}`,
    );
    expect(shown).toEqual([]);
  });

  it("needs every allowance (an allowance that matches no difference must go)", () => {
    const all = registered.flatMap(differencesOf);
    const unused = ALLOWANCES.filter((a) => !all.some((d) => a.matches(d))).map((a) => a.id);
    expect(unused).toEqual([]);
  });

  it("names, for every allowance, tests that exist (and says so when the rule is not enforced)", () => {
    for (const allowance of ALLOWANCES) {
      expect(allowance.why.length, allowance.id).toBeGreaterThan(20);
      expect(allowance.provedBy.length > 0, allowance.id).toBe(true);
      for (const reference of allowance.provedBy) {
        const [file, ...names] = reference.split(" > ");
        const path = join(import.meta.dirname, file as string);
        expect(existsSync(path), reference).toBe(true);
        const source = readFileSync(path, "utf8");
        for (const name of names) expect(source.includes(`"${name}"`), reference).toBe(true);
      }
    }
  });
});
