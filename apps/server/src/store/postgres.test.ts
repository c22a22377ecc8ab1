import { expect, it } from "vitest";
import { isOtherSchemaDropped } from "./postgres.ts";

it("retries a migration only for another schema dropped during Kysely's table listing", () => {
  const error = (code: string, message: string) => Object.assign(new Error(message), { code });
  expect(isOtherSchemaDropped(error("3F000", 'schema "scratch_a" does not exist'), "mine")).toBe(true);
  expect(isOtherSchemaDropped(error("42P01", 'relation "scratch_a.logAttributes" does not exist'), "mine")).toBe(true);
  expect(isOtherSchemaDropped(error("3F000", 'schema "mine" does not exist'), "mine")).toBe(false);
  expect(isOtherSchemaDropped(error("42P01", 'relation "mine.logAttributes" does not exist'), "mine")).toBe(false);
  expect(isOtherSchemaDropped(error("42P01", 'relation "apiKeys" does not exist'), "mine")).toBe(false);
  expect(isOtherSchemaDropped(error("23505", 'schema "scratch_a" does not exist'), "mine")).toBe(false);
});
