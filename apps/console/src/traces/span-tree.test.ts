import { describe, expect, it } from "vitest";
import { spanTree } from "./span-tree.ts";

const span = (
  id: string,
  referenceId: string | null,
  parentReferenceId: string | null,
  startedAt: number,
  endedAt: number,
) => ({
  id,
  referenceId,
  parentReferenceId,
  startedAt,
  endedAt,
});

describe("spanTree", () => {
  it("nests children under their parent by start time, with their place on the time line", () => {
    const rows = spanTree([
      span("c", "c", "a", 50, 100),
      span("a", "a", null, 0, 100),
      span("b", "b", "a", 10, 40),
      span("d", "d", "b", 20, 30),
    ]);
    expect(rows.map((row) => [row.span.id, row.depth, row.offset, row.width])).toEqual([
      ["a", 0, 0, 1],
      ["b", 1, 0.1, 0.3],
      ["d", 2, 0.2, 0.1],
      ["c", 1, 0.5, 0.5],
    ]);
  });

  it("keeps spans whose parent is missing, or that form a cycle, as roots", () => {
    const rows = spanTree([
      span("orphan", "o", "gone", 5, 6),
      span("x", "x", "y", 0, 1),
      span("y", "y", "x", 1, 2),
      span("plain", null, null, 0, 10),
    ]);
    expect(rows.map((row) => [row.span.id, row.depth])).toEqual([
      ["plain", 0],
      ["orphan", 0],
      ["x", 0],
      ["y", 0],
    ]);
  });

  it("walks a deep chain without overflowing the stack", () => {
    const chain = Array.from({ length: 10_000 }, (_, i) =>
      span(`s${i}`, `r${i}`, i === 0 ? null : `r${i - 1}`, i, i + 1),
    );
    const rows = spanTree(chain);
    expect(rows).toHaveLength(10_000);
    expect(rows.at(-1)?.depth).toBe(9_999);
  });
});
