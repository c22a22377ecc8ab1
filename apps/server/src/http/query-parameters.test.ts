/**
 * Every integer query parameter of the spec is read from digits only: an empty value (`?createdBefore=`) is a
 * 400 naming it, not 0, and so are other notations that a numeric coercion would take.
 */
import { openapiDocument } from "@pharos/contract";
import { expect, it } from "vitest";
import { describeEachStore } from "../testing/harness.ts";

type Node = Record<string, any>;
const document = openapiDocument as unknown as Node;
const resolve = (node: Node): Node =>
  typeof node.$ref === "string" ? resolve(document.components.parameters[node.$ref.split("/").pop() as string]) : node;

/** Each GET operation with an integer query parameter: a path with well-formed ids, and the parameter. */
const cases = Object.entries(document.paths as Record<string, Node>).flatMap(([path, item]) => {
  const operation = item.get as Node | undefined;
  if (!operation) return [];
  const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map(resolve);
  const concrete = path.replace(/\{(\w+)\}/g, (_, name: string) => `${name.replace(/Id$/, "")}_${"0".repeat(26)}`);
  return parameters
    .filter((parameter) => parameter.in === "query" && parameter.schema?.type === "integer")
    .map((parameter) => [`${operation.operationId as string} ${parameter.name}`, concrete, parameter.name] as const);
});

describeEachStore("integer query parameters", (use) => {
  it("finds the operations to check", () => {
    expect(cases.map(([name]) => name)).toEqual(
      expect.arrayContaining(["listProjects createdBefore", "listPrompts limit"]),
    );
  });

  it.each(cases)("%s: refuses an empty value and anything but digits", async (_, path, name) => {
    const h = use();
    for (const value of ["", "%20", "%207", "1e3", "0x10", "1.5", "%2B1", "9".repeat(20)]) {
      const reply = await h.request("GET", `${path}?projectId=${h.projectId}&${name}=${value}`);
      // Other required parameters (compareEvaluations' baselineId) may be named too.
      const fields = ((reply.body.error?.details ?? []) as { field: string }[]).map((detail) => detail.field);
      expect({ status: reply.status, named: fields.includes(`query.${name}`) }, `${name}=${value}`).toEqual({
        status: 400,
        named: true,
      });
    }
  });
});
