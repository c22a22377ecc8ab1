import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import { tooLarge } from "../errors.ts";
import type { AppEnv } from "./env.ts";

/**
 * Refuses a request body over `maxBytes` with 413. A body with a Content-Length is judged by that header alone
 * (Node's parser never reads past it), and the Node adapter later reads it straight from the socket. Hono's
 * bodyLimit reads `c.req.raw.body` first, which makes the adapter build a web Request and stream for every
 * request: a tenth of a log write's CPU. It still counts the chunked bodies, whose size shows only as they arrive.
 */
export function limitBody(maxBytes: number) {
  const countWhileReading = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw tooLarge("Request body", maxBytes);
    },
  });
  return createMiddleware<AppEnv>(async (c, next) => {
    if (c.req.method === "GET" || c.req.method === "HEAD") return next();
    const declared = c.req.header("Content-Length");
    if (declared === undefined || c.req.header("Transfer-Encoding") !== undefined) return countWhileReading(c, next);
    if (Number(declared) > maxBytes) throw tooLarge("Request body", maxBytes);
    return next();
  });
}
