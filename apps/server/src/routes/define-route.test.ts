/** The routes are served without header validators (define-route.ts): no handler may read validated headers. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";

it('no route handler reads c.req.valid("header"), which defineRoute does not validate', () => {
  const directory = import.meta.dirname;
  const handlers = readdirSync(directory, { recursive: true, encoding: "utf8" }).filter(
    (file) => file.endsWith(".ts") && !file.endsWith(".test.ts"),
  );
  expect(handlers.length).toBeGreaterThan(40);
  const readers = handlers.filter((file) =>
    /valid\(\s*["']header["']\s*\)/.test(readFileSync(join(directory, file), "utf8")),
  );
  expect(readers).toEqual([]);
});
