/**
 * The body of an OTLP/HTTP request (`POST /otel/v1/traces`): `application/x-protobuf` or `application/json`,
 * optionally `Content-Encoding: gzip`. Hono does not undo gzip, and the body limit (body-limit.ts) counts the
 * bytes sent; here the body is decompressed with its own cap, so that a small gzip that expands to gigabytes
 * is a 413 before anything is decoded, and the decompressed bytes replace the body for what reads it next
 * (the UTF-8 screen and the JSON validator read the same cache).
 */
import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { createMiddleware } from "hono/factory";
import { invalid, tooLarge } from "../errors.ts";
import type { AppEnv } from "./env.ts";

/** The most bytes an OTLP body may decompress to. */
export const MAX_OTLP_DECOMPRESSED_BYTES = 64 * 1024 * 1024;

const gunzipAsync = promisify(gunzip);

export type OtlpEncoding = "protobuf" | "json";

const PROTOBUF_TYPE = /^application\/x-protobuf\s*(;|$)/i;
const JSON_TYPE = /^application\/json\s*(;|$)/i;

/** The encoding a Content-Type names, or undefined for any other. */
export function otlpEncodingOf(contentType: string | undefined): OtlpEncoding | undefined {
  if (PROTOBUF_TYPE.test(contentType ?? "")) return "protobuf";
  if (JSON_TYPE.test(contentType ?? "")) return "json";
  return undefined;
}

export const otlpBody = createMiddleware<AppEnv>(async (c, next) => {
  if (otlpEncodingOf(c.req.header("Content-Type")) === undefined) {
    throw invalid("", "Content-Type must be application/x-protobuf or application/json (OTLP/HTTP).");
  }
  const encoding = (c.req.header("Content-Encoding") ?? "identity").trim().toLowerCase();
  if (encoding !== "gzip" && encoding !== "identity" && encoding !== "") {
    throw invalid("", `Content-Encoding ${encoding} is not supported: send gzip or no encoding.`);
  }
  if (encoding === "gzip") {
    const compressed = new Uint8Array(await c.req.arrayBuffer());
    let body: Buffer;
    try {
      body = await gunzipAsync(compressed, { maxOutputLength: MAX_OTLP_DECOMPRESSED_BYTES });
    } catch (error) {
      if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
        throw tooLarge("The decompressed request body", MAX_OTLP_DECOMPRESSED_BYTES);
      }
      throw invalid("", "the body is not valid gzip (Content-Encoding: gzip).");
    }
    // Everything after reads the decompressed body: Hono's reads go through this cache.
    const view = body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength);
    // The cache holds promises of bodies, whatever its declared type says (as in request-screen.ts).
    c.req.bodyCache = { arrayBuffer: Promise.resolve(view as ArrayBuffer) } as unknown as typeof c.req.bodyCache;
  }
  await next();
});
