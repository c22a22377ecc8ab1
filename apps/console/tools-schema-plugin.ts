/**
 * `virtual:prompt-tools-schema`: the JSON Schema of a draft's `tools` (an array of PromptTool, at most 128), cut
 * from the bundled spec at build time with only the component schemas it references, as `$defs`. The tools editor
 * validates against the contract itself, and the browser never downloads the whole spec (over 700 KB).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Plugin } from "vite";

const MODULE_ID = "virtual:prompt-tools-schema";
const RESOLVED_ID = `\0${MODULE_ID}`;
const COMPONENT_REF = /^#\/components\/schemas\/(.+)$/;

type Json = unknown;

/** `schema` with every `#/components/schemas/X` reference rewritten to `#/$defs/X`; collects the names it meets. */
function rewrite(schema: Json, seen: Set<string>): Json {
  if (Array.isArray(schema)) return schema.map((item) => rewrite(item, seen));
  if (schema === null || typeof schema !== "object") return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => {
      const match = key === "$ref" && typeof value === "string" ? COMPONENT_REF.exec(value) : null;
      if (match) {
        seen.add(match[1] as string);
        return [key, `#/$defs/${match[1]}`];
      }
      return [key, rewrite(value, seen)];
    }),
  );
}

export function toolsSchema(document: { components: { schemas: Record<string, Json> } }) {
  const defs: Record<string, Json> = {};
  const pending = new Set<string>(["PromptTool"]);
  for (const name of pending) {
    if (name in defs) continue;
    defs[name] = rewrite(document.components.schemas[name], pending);
  }
  return { type: "array", maxItems: 128, items: { $ref: "#/$defs/PromptTool" }, $defs: defs };
}

export function promptToolsSchema(): Plugin {
  return {
    name: "pharos-prompt-tools-schema",
    resolveId: (id) => (id === MODULE_ID ? RESOLVED_ID : undefined),
    load(id) {
      if (id !== RESOLVED_ID) return undefined;
      const path = createRequire(import.meta.url).resolve("@pharos/contract/openapi.json");
      this.addWatchFile(path);
      return `export default ${JSON.stringify(toolsSchema(JSON.parse(readFileSync(path, "utf8"))))};`;
    },
  };
}
