import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import {
  decodeTraceRequest,
  ExportTraceServiceRequestSchema,
  encodeTraceRequest,
  encodeTraceResponse,
  OtlpDecodeError,
  readTraceRequestJson,
  traceResponseJson,
} from "./index.ts";

const TRACE_ID = "5b8efff798038103d269b633813fc60c";
const SPAN_ID = "eee19b7ec3c1b174";

const jsonRequest = (span: Record<string, unknown>) => ({
  resourceSpans: [
    {
      resource: { attributes: [{ key: "service.name", value: { stringValue: "svc" } }] },
      scopeSpans: [{ scope: { name: "s" }, spans: [{ traceId: TRACE_ID, spanId: SPAN_ID, name: "n", ...span }] }],
    },
  ],
});

const onlySpan = (request: ReturnType<typeof readTraceRequestJson>) =>
  request.resourceSpans[0]?.scopeSpans[0]?.spans[0];

describe("readTraceRequestJson", () => {
  it("reads ids as hex (protobuf-es fromJson would read them as base64)", () => {
    const span = onlySpan(readTraceRequestJson(jsonRequest({ parentSpanId: "EEE19B7EC3C1B175" })));
    expect(span).toMatchObject({ traceId: TRACE_ID, spanId: SPAN_ID, parentSpanId: "eee19b7ec3c1b175" });
  });

  it("reads int64 as a string or a number, and enums as numbers or names", () => {
    const span = onlySpan(
      readTraceRequestJson(
        jsonRequest({
          startTimeUnixNano: "1732190400100000000",
          endTimeUnixNano: 1732190400200000000,
          kind: 3,
          status: { code: "STATUS_CODE_ERROR", message: "boom" },
          attributes: [
            { key: "a", value: { intValue: "12" } },
            { key: "b", value: { intValue: 7 } },
            { key: "big", value: { intValue: "9223372036854775807" } },
            { key: "d", value: { doubleValue: "NaN" } },
            { key: "l", value: { arrayValue: { values: [{ stringValue: "x" }, { boolValue: true }] } } },
            { key: "m", value: { kvlistValue: { values: [{ key: "k", value: { intValue: 1 } }] } } },
          ],
        }),
      ),
    );
    expect(span?.startTimeUnixNano).toBe(1732190400100000000n);
    expect(span?.endTimeUnixNano).toBe(1732190400200000000n);
    expect(span?.kind).toBe(3);
    expect(span?.status).toEqual({ code: 2, message: "boom" });
    expect(Object.fromEntries(span?.attributes ?? [])).toEqual({
      a: 12,
      b: 7,
      big: "9223372036854775807",
      d: Number.NaN,
      l: ["x", true],
      m: new Map([["k", 1]]),
    });
  });

  it.each([
    ["a base64 id", { spanId: "7uGbfsPBsXQ=" }, "spanId"],
    ["a number as a name", { name: 5 }, "name"],
    ["a fractional time", { startTimeUnixNano: 1.5 }, "startTimeUnixNano"],
    ["an object as spans", null, "spans"],
    ["a string as an int", { attributes: [{ key: "a", value: { intValue: "x" } }] }, "intValue"],
  ])("refuses %s, naming the field", (_, span, field) => {
    const request =
      span === null
        ? { resourceSpans: [{ scopeSpans: [{ spans: {} }] }] }
        : jsonRequest(span as Record<string, unknown>);
    expect(() => readTraceRequestJson(request)).toThrow(OtlpDecodeError);
    expect(() => readTraceRequestJson(request)).toThrow(field);
  });
});

describe("decodeTraceRequest", () => {
  it("reads what protobuf-es writes, and refuses a truncated body", () => {
    const bytes = toBinary(
      ExportTraceServiceRequestSchema,
      create(ExportTraceServiceRequestSchema, {
        resourceSpans: [
          {
            scopeSpans: [
              {
                spans: [
                  {
                    traceId: Buffer.from(TRACE_ID, "hex"),
                    spanId: Buffer.from(SPAN_ID, "hex"),
                    name: "chat",
                    kind: 3,
                    startTimeUnixNano: 5n,
                    attributes: [{ key: "n", value: { value: { case: "intValue", value: 3n } } }],
                  },
                ],
              },
            ],
          },
        ],
      }),
    );
    const span = onlySpan(decodeTraceRequest(bytes));
    expect(span).toMatchObject({ traceId: TRACE_ID, spanId: SPAN_ID, parentSpanId: "", name: "chat", kind: 3 });
    expect(span?.attributes.get("n")).toBe(3);
    expect(() => decodeTraceRequest(bytes.subarray(0, bytes.length - 3))).toThrow(OtlpDecodeError);
  });
});

describe("responses", () => {
  it("leave partialSuccess unset on full success", () => {
    expect(traceResponseJson({})).toEqual({});
    expect(encodeTraceResponse({}).length).toBe(0);
    expect(traceResponseJson({ partialSuccess: { rejectedSpans: 2, errorMessage: "m" } })).toEqual({
      partialSuccess: { rejectedSpans: "2", errorMessage: "m" },
    });
  });
});

describe("encodeTraceRequest", () => {
  it("writes what decodeTraceRequest reads back", () => {
    const request = readTraceRequestJson({
      resourceSpans: [
        {
          resource: { attributes: [{ key: "service.name", value: { stringValue: "svc" } }] },
          scopeSpans: [
            {
              scope: { name: "s", version: "1" },
              spans: [
                {
                  traceId: TRACE_ID,
                  spanId: SPAN_ID,
                  parentSpanId: "eee19b7ec3c1b175",
                  name: "n",
                  kind: 3,
                  startTimeUnixNano: "1732190400100000000",
                  endTimeUnixNano: "1732190400200000000",
                  attributes: [
                    { key: "i", value: { intValue: 3 } },
                    { key: "d", value: { doubleValue: 0.5 } },
                    {
                      key: "m",
                      value: {
                        kvlistValue: {
                          values: [{ key: "l", value: { arrayValue: { values: [{ boolValue: true }] } } }],
                        },
                      },
                    },
                  ],
                  events: [{ timeUnixNano: "5", name: "e", attributes: [] }],
                  status: { code: 2, message: "boom" },
                },
              ],
            },
          ],
        },
      ],
    });
    expect(decodeTraceRequest(encodeTraceRequest(request))).toEqual(request);
  });
});
