import type { Hook } from "@hono/zod-openapi";
import { ApiError } from "../errors.ts";
import type { AppEnv } from "./env.ts";

const PARTS: Record<string, { prefix: string; message: string }> = {
  json: { prefix: "", message: "Request body is invalid." },
  query: { prefix: "query.", message: "Query parameters are invalid." },
  param: { prefix: "path.", message: "Path parameters are invalid." },
  header: { prefix: "header.", message: "Request headers are invalid." },
};

/** The validation hook of every route: a zod failure becomes VALIDATION_ERROR with one detail per issue. */
// biome-ignore lint/suspicious/noExplicitAny: the hook serves every route, whatever its input and output types.
export const validationHook: Hook<any, AppEnv, any, any> = (result) => {
  if (result.success) return;
  const part = PARTS[result.target] ?? { prefix: "", message: "Request is invalid." };
  const details = result.error.issues.slice(0, 100).map((issue) => ({
    field: `${part.prefix}${issue.path.join(".")}`.replace(/\.$/, ""),
    issue: issue.message,
  }));
  throw new ApiError("VALIDATION_ERROR", part.message, details);
};
