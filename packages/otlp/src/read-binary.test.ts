/**
 * The reader written for OTLP's messages (read-binary.ts) against protobuf-es's generic `fromBinary`: the same
 * plain form, or the same error, for every captured request and for random ones (well-formed requests, corrupted
 * requests, and random field streams with wrong wire types, unknown fields, repeated singular messages, groups
 * and deep nesting).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { create, toBinary } from "@bufbuild/protobuf";
import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decodeTraceRequest,
  decodeTraceRequestWithFromBinary,
  ExportTraceServiceRequestSchema,
  encodeTraceRequest,
  type OtlpTraceRequest,
  type OtlpValue,
} from "./index.ts";

type Outcome = { ok: true; request: OtlpTraceRequest } | { ok: false; error: string };

function outcome(decode: (bytes: Uint8Array) => OtlpTraceRequest, bytes: Uint8Array): Outcome {
  try {
    return { ok: true, request: decode(bytes) };
  } catch (error) {
    return { ok: false, error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

/** Both readers give the same plain form, or throw the same error; answers whether they read it. */
function expectSame(bytes: Uint8Array): boolean {
  const reference = outcome(decodeTraceRequestWithFromBinary, bytes);
  expect(outcome(decodeTraceRequest, bytes)).toEqual(reference);
  return reference.ok;
}

const FIXTURE_DIRECTORIES = [
  new URL("../../../../shared/fixtures/otlp/", import.meta.url).pathname,
  new URL("../../../apps/server/src/testing/fixtures/otlp/", import.meta.url).pathname,
];

function fixtures(): [string, Uint8Array][] {
  const found: [string, Uint8Array][] = [];
  const walk = (directory: string) => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(directory, { withFileTypes: true });
    } catch {
      return; // ../shared is beside the repository on the development machines only
    }
    for (const entry of entries) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".pb")) found.push([path, readFileSync(path)]);
      else if (entry.name.endsWith(".pb.gz")) found.push([path, gunzipSync(readFileSync(path))]);
    }
  };
  for (const directory of FIXTURE_DIRECTORIES) walk(directory);
  return found;
}

const captured = fixtures();

describe("readTraceRequestBinary", () => {
  it("finds the captured requests", () => {
    expect(captured.length).toBeGreaterThanOrEqual(9);
  });

  it.each(captured.map(([path, bytes]) => [path.replace(/.*fixtures\/otlp\//, ""), bytes] as const))(
    "reads %s as fromBinary does",
    (_, bytes) => {
      expect(expectSame(bytes)).toBe(true);
    },
  );

  it("reads every prefix of a captured request as fromBinary does (mostly errors)", () => {
    const [, bytes] = captured.find(([path]) => path.endsWith("otlp-proto-parent.pb")) ?? captured[0] ?? [];
    if (!bytes) return;
    for (let length = 0; length <= bytes.length; length += 1) expectSame(bytes.subarray(0, length));
  });

  it("reads corrupted captured requests as fromBinary does", () => {
    const sources = captured.map(([, bytes]) => bytes);
    fc.assert(
      fc.property(
        fc.nat({ max: sources.length - 1 }),
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 }), fc.constantFrom("set", "insert", "delete")), {
          minLength: 1,
          maxLength: 4,
        }),
        (which, edits) => {
          const bytes = [...(sources[which] as Uint8Array)];
          for (const [at, byte, edit] of edits) {
            const index = bytes.length === 0 ? 0 : at % bytes.length;
            if (edit === "set") bytes[index] = byte;
            else if (edit === "insert") bytes.splice(index, 0, byte);
            else bytes.splice(index, 1);
          }
          expectSame(Uint8Array.from(bytes));
        },
      ),
      { numRuns: 1_500 },
    );
  });

  it("reads random well-formed requests as fromBinary does", () => {
    const id = (bytes: number) =>
      fc.oneof(
        fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((value) => Buffer.from(value).toString("hex")),
        fc.constant(""),
      );
    const text = fc.oneof(fc.string(), fc.string({ unit: "grapheme" }), fc.constantFrom("gen_ai.system", "\0"));
    const { value } = fc.letrec<{ value: OtlpValue }>((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        text,
        fc.boolean(),
        // encodeTraceRequest writes whole numbers as int64: those past 2^63 could not be written
        fc.double().filter((number) => !Number.isInteger(number) || Number.isSafeInteger(number)),
        fc.integer(),
        fc.constant(null),
        fc.array(tie("value"), { maxLength: 3 }),
        fc.array(fc.tuple(text, tie("value")), { maxLength: 3 }).map((entries) => new Map(entries)),
      ),
    }));
    const attributes = fc.array(fc.tuple(text, value), { maxLength: 5 }).map((entries) => new Map(entries));
    const time = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
    const span = fc.record({
      traceId: id(16),
      spanId: id(8),
      parentSpanId: id(8),
      traceState: text,
      name: text,
      kind: fc.integer({ min: -1, max: 7 }),
      startTimeUnixNano: time,
      endTimeUnixNano: time,
      attributes,
      events: fc.array(fc.record({ timeUnixNano: time, name: text, attributes }), { maxLength: 2 }),
      links: fc.array(fc.record({ traceId: id(16), spanId: id(8), attributes }), { maxLength: 2 }),
      status: fc.record({ code: fc.integer({ min: 0, max: 3 }), message: text }),
      droppedAttributesCount: fc.nat(),
      droppedEventsCount: fc.nat(),
      droppedLinksCount: fc.nat(),
    });
    const request = fc.record({
      resourceSpans: fc.array(
        fc.record({
          resource: attributes,
          scopeSpans: fc.array(
            fc.record({
              scope: fc.record({ name: text, version: text, attributes }),
              spans: fc.array(span, { maxLength: 3 }),
            }),
            { maxLength: 2 },
          ),
        }),
        { maxLength: 2 },
      ),
    });
    fc.assert(
      fc.property(request, (plain) => {
        expect(expectSame(encodeTraceRequest(plain))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("reads random field streams as fromBinary does", () => {
    // Messages built from tags of the field numbers OTLP uses (and a few it does not), of any wire type, with
    // nested messages, text, varints, fixed widths and groups: wrong wire types, unknown fields, singular
    // messages sent twice, oneof members replacing each other.
    const varint = (value: bigint): number[] => {
      const bytes: number[] = [];
      let rest = BigInt.asUintN(64, value);
      do {
        const low = Number(rest & 0x7fn);
        rest >>= 7n;
        bytes.push(rest > 0n ? low | 0x80 : low);
      } while (rest > 0n);
      return bytes;
    };
    const tag = (fieldNo: number, wireType: number) => varint(BigInt((fieldNo << 3) | wireType));
    type Field = number[];
    const { message } = fc.letrec<{ message: number[]; field: Field }>((tie) => ({
      message: fc.array(tie("field"), { maxLength: 6 }).map((fields) => fields.flat()),
      field: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        fc
          .tuple(fc.integer({ min: 1, max: 17 }), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 64n - 1n }))
          .map(([no, value]) => [...tag(no, 0), ...varint(value)]),
        fc
          .tuple(fc.integer({ min: 1, max: 17 }), fc.uint8Array({ minLength: 8, maxLength: 8 }))
          .map(([no, bytes]) => [...tag(no, 1), ...bytes]),
        fc
          .tuple(fc.integer({ min: 1, max: 17 }), fc.uint8Array({ minLength: 4, maxLength: 4 }))
          .map(([no, bytes]) => [...tag(no, 5), ...bytes]),
        fc
          .tuple(
            fc.integer({ min: 1, max: 17 }),
            fc.oneof(
              tie("message"),
              fc.string().map((text) => [...Buffer.from(text)]),
              fc.uint8Array({ maxLength: 12 }).map((bytes) => [...bytes]),
            ),
          )
          .map(([no, body]) => [...tag(no, 2), ...varint(BigInt(body.length)), ...body]),
        fc
          .tuple(fc.integer({ min: 1, max: 17 }), tie("message"))
          .map(([no, body]) => [...tag(no, 3), ...body, ...tag(no, 4)]),
      ),
    }));
    fc.assert(
      fc.property(message, (bytes) => {
        expectSame(Uint8Array.from(bytes));
      }),
      { numRuns: 3_000 },
    );
  });

  it("fails as fromBinary does on nesting past the recursion limit, and on attributes nested too deep", () => {
    const nested = (levels: number, kind: "array" | "map") => {
      let value: unknown = { value: { case: "stringValue", value: "leaf" } };
      for (let level = 0; level < levels; level++) {
        value =
          kind === "array"
            ? { value: { case: "arrayValue", value: { values: [value] } } }
            : { value: { case: "kvlistValue", value: { values: [{ key: "k", value }] } } };
      }
      return toBinary(
        ExportTraceServiceRequestSchema,
        create(ExportTraceServiceRequestSchema, {
          resourceSpans: [{ resource: { attributes: [{ key: "deep", value: value as never }] } }],
        }),
      );
    };
    for (const levels of [127, 128, 129, 130, 140, 200, 250]) {
      expectSame(nested(levels, "array"));
      expectSame(nested(levels, "map"));
    }
    expect(expectSame(nested(300, "array"))).toBe(false);
    expect(expectSame(nested(140, "map"))).toBe(false);
  });
});
