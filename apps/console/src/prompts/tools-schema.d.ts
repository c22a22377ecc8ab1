/** Built by tools-schema-plugin.ts from the bundled spec: the JSON Schema of a draft's `tools`. */
declare module "virtual:prompt-tools-schema" {
  const schema: Record<string, unknown>;
  export default schema;
}
