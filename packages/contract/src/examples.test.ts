import { describe, expect, it } from "vitest";
import { allExamples } from "./testing/examples.ts";
import { operationsOf, responsesOf, schemaErrors } from "./testing/spec.ts";

const examples = allExamples();

describe("examples", () => {
  it.each(examples.map((e) => [e.where, e] as const))("%s validates against its schema (ajv)", (_, example) => {
    expect(schemaErrors(example.schema, example.value)).toBeUndefined();
  });

  it.each(operationsOf().map((op) => [op.operationId, op] as const))(
    "%s has an example for its request body and its success response",
    (_, operation) => {
      const mine = examples.filter((e) => e.operation?.operationId === operation.operationId);
      if (operation.node.requestBody) expect(mine.some((e) => e.part?.kind === "request")).toBe(true);
      const success = [...responsesOf(operation).entries()].filter(([status]) => /^2/.test(status));
      expect(success.length).toBeGreaterThan(0);
      for (const [status, response] of success) {
        if (response.content === undefined) continue; // 204: no body
        expect(
          mine.some((e) => e.part?.kind === "response" && e.part.status === status),
          `response ${status}`,
        ).toBe(true);
      }
    },
  );
});
