/** The validator must catch what it is there to catch: these responses are wrong on purpose. */
import { createClient } from "@pharos/client";
import { describe, expect, it } from "vitest";
import { bundle, specOperationById } from "./spec.ts";
import { validatingMiddleware } from "./target.ts";
import { ConformanceError, checkResponse, STATUS_OF_ERROR_CODE } from "./validator.ts";

const REQUEST_ID = "0b6f4c7e-3f8a-4a53-9d0c-6f1f5a1d2e3b";
const PROJECT = {
  id: "project_01JD8Q4KZ8T6V2M3N4P5Q6R7S8",
  title: "Support assistant",
  icon: { type: "emoji", value: "🛟" },
  maskingRules: [],
  retentionDays: null,
  createdAt: 1732190400000,
  updatedAt: 1732190400000,
};
const getProject = specOperationById.get("getProject");
const deletePrompt = specOperationById.get("deletePrompt");
if (!getProject || !deletePrompt) throw new Error("spec operations missing");

/** The RateLimit headers of a request the rate limit counted. */
const COUNTED = { "RateLimit-Policy": '"other";q=6000;w=60', RateLimit: '"other";r=5999;t=30' };
const json = (
  status: number,
  body: unknown,
  headers: Record<string, string> = { "X-Request-Id": REQUEST_ID, ...COUNTED },
) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
const error = (code: string) => ({ error: { code, message: "m" } });

describe("checkResponse", () => {
  it("accepts a conforming success and a conforming error", async () => {
    expect(await checkResponse(getProject, json(200, PROJECT))).toEqual([]);
    expect(await checkResponse(getProject, json(404, error("RESOURCE_NOT_FOUND")))).toEqual([]);
    const deleted = new Response(null, { status: 204, headers: { "X-Request-Id": REQUEST_ID, ...COUNTED } });
    expect(await checkResponse(deletePrompt, deleted)).toEqual([]);
  });

  it("checks every line of an NDJSON body against the line's schema (POST /logs/spans/export)", async () => {
    const exportLogSpans = specOperationById.get("exportLogSpans");
    if (!exportLogSpans) throw new Error("spec operation missing");
    const ndjson = (text: string) =>
      new Response(text, {
        status: 200,
        headers: { "Content-Type": "application/x-ndjson", "X-Request-Id": REQUEST_ID, ...COUNTED },
      });
    const checkpoint = '{"nextCursor":"abc.def","exported":200}\n';
    expect(await checkResponse(exportLogSpans, ndjson(`${checkpoint}{"end":true,"exported":200}\n`))).toEqual([]);
    expect(await checkResponse(exportLogSpans, ndjson(`${checkpoint}{"end":true,"exported":"200"}\n`))).toEqual([
      expect.stringContaining("NDJSON line 2 does not match the schema"),
    ]);
    expect(await checkResponse(exportLogSpans, ndjson("{nope}\n"))).toEqual([
      expect.stringContaining("NDJSON line 1 is not JSON"),
    ]);
    expect(await checkResponse(exportLogSpans, ndjson('{"end":true,"exported":0}'))).toEqual([
      "NDJSON body does not end with a newline",
    ]);
  });

  it("rejects a status the operation does not declare", async () => {
    expect(await checkResponse(getProject, json(409, error("CONFLICT")))).toEqual([
      expect.stringContaining("status 409 is not declared"),
    ]);
  });

  it("rejects a body that breaks the schema: a missing field, an extra field, a wrong type", async () => {
    const { title: _, ...untitled } = PROJECT;
    expect((await checkResponse(getProject, json(200, untitled)))[0]).toMatch(/must have required property 'title'/);
    expect((await checkResponse(getProject, json(200, { ...PROJECT, extra: 1 })))[0]).toMatch(
      /must NOT have additional properties/,
    );
    expect((await checkResponse(getProject, json(200, { ...PROJECT, createdAt: "now" })))[0]).toMatch(
      /must be integer/,
    );
    expect((await checkResponse(getProject, json(400, { error: "bad" })))[0]).toMatch(/must be object/);
  });

  it("rejects a missing or malformed X-Request-Id, and one that does not echo the client's", async () => {
    expect(await checkResponse(getProject, json(200, PROJECT, COUNTED))).toEqual(["header X-Request-Id is missing"]);
    expect((await checkResponse(getProject, json(200, PROJECT, { "X-Request-Id": "abc", ...COUNTED })))[0]).toMatch(
      /header X-Request-Id \(abc\).*must match format "uuid"/,
    );
    const request = new Request("http://x/v2/projects/p", {
      headers: { "X-Request-Id": "9b6f4c7e-3f8a-4a53-9d0c-6f1f5a1d2e3b" },
    });
    expect(await checkResponse(getProject, json(200, PROJECT), request)).toEqual([
      expect.stringContaining("does not echo"),
    ]);
  });

  it("rejects a 429 without Retry-After", async () => {
    expect(await checkResponse(getProject, json(429, error("RATE_LIMITED")))).toEqual([
      "header Retry-After is missing",
    ]);
    const withHeader = json(429, error("RATE_LIMITED"), { "X-Request-Id": REQUEST_ID, "Retry-After": "2", ...COUNTED });
    expect(await checkResponse(getProject, withHeader)).toEqual([]);
  });

  it("rejects a success without the RateLimit headers, or with one the draft's syntax does not allow", async () => {
    expect(await checkResponse(getProject, json(200, PROJECT, { "X-Request-Id": REQUEST_ID }))).toEqual([
      "header RateLimit-Policy is missing",
      "header RateLimit is missing",
    ]);
    const limitLimit = json(200, PROJECT, {
      "X-Request-Id": REQUEST_ID,
      ...COUNTED,
      RateLimit: "limit=6000, remaining=5",
    });
    expect((await checkResponse(getProject, limitLimit))[0]).toMatch(
      /header RateLimit \(limit=6000, remaining=5\).*must match pattern/,
    );
  });

  it("rejects an error code that belongs to another status and a non-JSON body", async () => {
    expect(await checkResponse(getProject, json(400, error("RESOURCE_NOT_FOUND")))).toEqual([
      "error code RESOURCE_NOT_FOUND belongs to status 404, not 400",
    ]);
    const text = new Response("oops", { status: 200, headers: { "X-Request-Id": REQUEST_ID, ...COUNTED } });
    expect((await checkResponse(getProject, text))[0]).toMatch(/Content-Type .* is not a declared media type/);
  });

  it("knows the status of every error code of the spec", () => {
    const codes = ((bundle.components as any).schemas.ErrorCode as { enum: string[] }).enum;
    expect(Object.keys(STATUS_OF_ERROR_CODE).sort()).toEqual([...codes].sort());
  });
});

describe("the validating middleware", () => {
  const clientAnswering = (response: Response) => {
    const client = createClient({
      baseUrl: "http://pharos.test/v2",
      apiKey: "k",
      retry: false,
      fetch: async (request) => {
        response.headers.set("X-Request-Id", request.headers.get("X-Request-Id") ?? "");
        return response;
      },
    });
    client.use(validatingMiddleware);
    return client;
  };

  it("passes a conforming answer through", async () => {
    const client = clientAnswering(json(200, PROJECT));
    const { data } = await client.GET("/projects/{projectId}", { params: { path: { projectId: PROJECT.id } } });
    expect(data).toEqual(PROJECT);
  });

  it("makes the call fail on a non-conforming answer", async () => {
    const client = clientAnswering(json(200, { ...PROJECT, title: 7 }));
    const call = client.GET("/projects/{projectId}", { params: { path: { projectId: PROJECT.id } } });
    await expect(call).rejects.toBeInstanceOf(ConformanceError);
    await expect(
      clientAnswering(json(418, {})).GET("/projects/{projectId}", { params: { path: { projectId: PROJECT.id } } }),
    ).rejects.toThrow(/getProject answered 418 against the spec/);
  });
});
