import type { Hook } from "@hono/zod-openapi";
import { invalidRequest } from "../errors.ts";
import type { AppEnv } from "./env.ts";

/** Where each part of a request is, in the details' field paths. */
const PREFIXES: Record<string, string> = { json: "", query: "query.", param: "path.", header: "header." };

/** The validation hook of every route: a zod failure becomes VALIDATION_ERROR with one detail per issue. */
// biome-ignore lint/suspicious/noExplicitAny: the hook serves every route, whatever its input and output types.
export const validationHook: Hook<any, AppEnv, any, any> = (result) => {
  if (result.success) return;
  const prefix = PREFIXES[result.target] ?? "";
  throw invalidRequest(
    result.error.issues.map((issue) => ({
      field: `${prefix}${issue.path.join(".")}`.replace(/\.$/, ""),
      issue: issue.message,
    })),
  );
};
