/**
 * Every operation of the spec is either registered by the server or listed here as not yet implemented, with
 * the issue that will implement it. A listed operation that gets registered fails the suite until it is taken
 * off the list, so the list can only shrink.
 */
import { routeDefinitions } from "@pharos/server";
import { describe, expect, it } from "vitest";
import { specOperationById, specOperations } from "./spec.ts";

const NOT_YET_IMPLEMENTED: Record<string, string> = {};

const registered = routeDefinitions.map((definition) => definition.operationId as string);

describe("operation registration", () => {
  it("registers or lists every operation of the spec", () => {
    const missing = specOperations
      .map((op) => op.operationId)
      .filter((id) => !registered.includes(id) && !(id in NOT_YET_IMPLEMENTED));
    expect(missing, "operations neither registered nor listed as not yet implemented").toEqual([]);
  });

  it("lists only operations that are not registered (take an operation off the list when it lands)", () => {
    expect(Object.keys(NOT_YET_IMPLEMENTED).filter((id) => registered.includes(id))).toEqual([]);
  });

  it("lists only operations of the spec, each with its issue", () => {
    for (const [id, issue] of Object.entries(NOT_YET_IMPLEMENTED)) {
      expect(specOperationById.has(id), id).toBe(true);
      expect(issue).toMatch(/^issue \d+ /);
    }
  });

  it("registers each operation once, in spec order, on the spec's method and path", () => {
    expect(new Set(registered).size).toBe(registered.length);
    // Spec order is the order of the spec's paths; the operations of one path may come in any method order.
    const paths = [...new Set(specOperations.map((op) => op.path))];
    const pathIndex = (id: string) => paths.indexOf(specOperationById.get(id)?.path ?? "");
    expect([...registered].sort((a, b) => pathIndex(a) - pathIndex(b))).toEqual(registered);
    for (const definition of routeDefinitions) {
      const spec = specOperationById.get(definition.operationId);
      const route = definition.route as { method: string; path: string };
      expect({ method: route.method, path: route.path }, definition.operationId).toEqual({
        method: spec?.method,
        path: spec?.path,
      });
    }
  });
});
