import { createMiddleware } from "hono/factory";
import type { Logger } from "pino";
import type { AppEnv } from "./env.ts";

/** One structured line per request, with the request id; the request's logger carries it too. */
export const accessLog = (logger: Logger) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const started = performance.now();
    const requestLogger = logger.child({ requestId: c.get("requestId") });
    c.set("logger", requestLogger);
    await next();
    requestLogger.info(
      {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      },
      "request",
    );
  });
