/** Conditional headers are served without a validator (define-route.ts): no handler may read them as validated input. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { CONDITIONAL_HEADERS } from "./define-route.ts";

it("no route handler reads a conditional header from c.req.valid, which defineRoute does not validate", () => {
  const directory = import.meta.dirname;
  const handlers = readdirSync(directory, { recursive: true, encoding: "utf8" }).filter(
    (file) => file.endsWith(".ts") && !file.endsWith(".test.ts"),
  );
  expect(handlers.length).toBeGreaterThan(40);
  const readers = handlers.filter((file) => {
    const source = readFileSync(join(directory, file), "utf8");
    return CONDITIONAL_HEADERS.some((name) => source.includes(`valid("header")["${name}"]`));
  });
  expect(readers).toEqual([]);
});
