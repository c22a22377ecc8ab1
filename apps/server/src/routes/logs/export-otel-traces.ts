import {
  decodeTraceRequest,
  encodeTraceResponse,
  OtlpDecodeError,
  readTraceRequestJson,
  traceResponseJson,
} from "@pharos/otlp";
import { invalid } from "../../errors.ts";
import { otlpBody, otlpEncodingOf } from "../../http/otlp-body.ts";
import { exportOtelTraces } from "../../services/otel/export-otel-traces.ts";
import { defineRoute } from "../define-route.ts";

/** The request, decoded from its encoding; a body that is not one is a 400 (a RangeError: nested too deep to read). */
async function readRequest(
  encoding: "protobuf" | "json",
  body: () => Promise<ArrayBuffer>,
  json: () => Promise<unknown>,
) {
  try {
    return encoding === "protobuf"
      ? decodeTraceRequest(new Uint8Array(await body()))
      : readTraceRequestJson(await json());
  } catch (error) {
    if (error instanceof OtlpDecodeError || error instanceof RangeError) {
      throw invalid("", `the body is not an OTLP ExportTraceServiceRequest: ${error.message}`);
    }
    throw error;
  }
}

export default defineRoute(
  "exportOtelTraces",
  async (c) => {
    const encoding = otlpEncodingOf(c.req.header("Content-Type")) ?? "json";
    const request = await readRequest(
      encoding,
      () => c.req.arrayBuffer(),
      () => c.req.json(),
    );
    const result = await exportOtelTraces(c.var.ctx, {
      projectId: c.req.valid("header")["x-pharos-project-id"],
      request,
    });
    const response =
      result.rejectedSpans > 0
        ? { partialSuccess: { rejectedSpans: result.rejectedSpans, errorMessage: result.errorMessage } }
        : {};
    if (encoding === "json") return c.json(traceResponseJson(response), 200);
    return c.body(encodeTraceResponse(response) as Uint8Array<ArrayBuffer>, 200, {
      "Content-Type": "application/x-protobuf",
    });
  },
  [otlpBody],
);
