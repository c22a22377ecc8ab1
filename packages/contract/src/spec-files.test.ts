/** The multi-file layout of openapi/ (openapi/README.md): one component per file, every file used. */
import { readdirSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { document, operationsOf } from "./testing/spec.ts";

const openapiDir = resolve(dirname(fileURLToPath(import.meta.url)), "../../../openapi");
const yamlFiles = (dir: string) =>
  readdirSync(join(openapiDir, dir))
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => basename(f, ".yaml"));

describe("openapi/ files", () => {
  it.each(["schemas", "parameters", "responses", "headers"])(
    "every file in components/%s is a bundled component",
    (kind) => {
      const bundled = Object.keys(((document.components as Record<string, object>)[kind] as object) ?? {});
      expect(yamlFiles(`components/${kind}`).sort()).toEqual(bundled.sort());
    },
  );

  it("has one file per path, named after it", () => {
    const expected = Object.keys(document.paths as object).map((p) => p.slice(1).replaceAll("/", "_"));
    expect(yamlFiles("paths").sort()).toEqual(expected.sort());
  });

  it("names operationIds as camelCase verbs", () => {
    for (const { operationId } of operationsOf()) {
      // `export`: the OTLP endpoint keeps the name of the OTLP service's one RPC (TraceService.Export);
      // `run`: the playground's call of a prompt (runPrompt), which creates nothing of its own but a trace.
      expect(operationId).toMatch(
        /^(list|get|create|update|delete|search|cancel|rotate|send|export|compare|fetch|run)[A-Z][A-Za-z]+$/,
      );
    }
  });
});
