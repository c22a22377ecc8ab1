/**
 * What every request must be beyond its operation's schema (openapi/description.md, "Bodies"): a JSON body is
 * UTF-8, nests at most MAX_NESTING levels of objects and arrays, and no string of a body, query or path holds
 * U+0000. Both databases are then given the same input: PostgreSQL cannot store U+0000 in text, and deep nesting
 * would overflow the stack of the code that serializes it.
 */
import { isUtf8 } from "node:buffer";
import { createMiddleware } from "hono/factory";
import { type ErrorDetail, invalid } from "../errors.ts";
import type { AppEnv } from "./env.ts";

/** How deep objects and arrays may nest in a request body; the body itself is level 1. */
export const MAX_NESTING = 64;

const NUL_ISSUE = "must not contain the character U+0000 (NUL)";

/** The most problems one screening reports (more of the same say nothing new). */
const MAX_PROBLEMS = 20;

const JSON_TYPE = /^application\/([\w.-]+\+)?json\s*(;|$)/i;
const decoder = new TextDecoder();

/**
 * Decodes a JSON body from its bytes and refuses invalid UTF-8 (400), which reading it as text would silently
 * replace with U+FFFD. Validation then parses the text cached here.
 */
export const requireUtf8Body = createMiddleware<AppEnv>(async (c, next) => {
  const method = c.req.method;
  if (method !== "GET" && method !== "HEAD" && JSON_TYPE.test(c.req.header("Content-Type") ?? "")) {
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    if (!isUtf8(bytes)) throw invalid("", "the request body is not valid UTF-8");
    // Hono's json() parses the cached text, so it parses this decoding. The cache holds promises of bodies,
    // whatever its declared type says.
    (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(decoder.decode(bytes));
  }
  await next();
});

interface Entry {
  value: object;
  depth: number;
  parent: Entry | undefined;
  key: string;
}

const pathOf = (entry: Entry | undefined, key: string, prefix: string): string => {
  const keys = [key];
  for (let at = entry; at?.parent !== undefined; at = at.parent) keys.push(at.key);
  return `${prefix}${keys.reverse().join(".")}`.replace(/\.$/, "");
};

/**
 * The problems of a validated request part (`prefix` is where it sits: "" for the body, "query.", "path."): each
 * string or key holding U+0000, and the first object or array nested deeper than MAX_NESTING. Iterative, so that
 * no depth of input can overflow the stack here.
 */
export function screenRequestPart(value: unknown, prefix: string): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  if (typeof value === "string") {
    if (value.includes("\0")) problems.push({ field: prefix.replace(/\.$/, ""), issue: NUL_ISSUE });
    return problems;
  }
  if (value === null || typeof value !== "object") return problems;
  const stack: Entry[] = [{ value, depth: 1, parent: undefined, key: "" }];
  while (stack.length > 0 && problems.length < MAX_PROBLEMS) {
    const entry = stack.pop() as Entry;
    if (entry.depth > MAX_NESTING) {
      problems.push({
        field: pathOf(entry.parent, entry.key, prefix),
        issue: `nests deeper than ${MAX_NESTING} levels of objects and arrays`,
      });
      // Deeper levels of the same branch would only repeat it.
      continue;
    }
    for (const [key, child] of Object.entries(entry.value)) {
      if (key.includes("\0")) problems.push({ field: pathOf(entry, key, prefix), issue: `key ${NUL_ISSUE}` });
      if (typeof child === "string") {
        if (child.includes("\0")) problems.push({ field: pathOf(entry, key, prefix), issue: NUL_ISSUE });
      } else if (child !== null && typeof child === "object") {
        stack.push({ value: child, depth: entry.depth + 1, parent: entry, key });
      }
    }
  }
  return problems;
}
