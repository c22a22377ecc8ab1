import { describe, expect, it } from "vitest";
import type { Schemas } from "../api.ts";
import { anyPending, cellValue, changedValues, computedStatusText } from "./cells.ts";
import { batches, parseCsv } from "./csv.ts";
import { missingColumns, spanVariableNames } from "./span-rows.ts";

describe("parseCsv", () => {
  it("maps records onto the dataset's columns by header, empty fields as empty cells", () => {
    const csv = 'question,expected,notes\n"Where is order 7, please?",Tomorrow,x\nRefund?,,\n\n';
    expect(parseCsv(csv, ["question", "expected"])).toEqual({
      headers: ["question", "expected", "notes"],
      unknownHeaders: ["notes"],
      rows: [
        { question: "Where is order 7, please?", expected: "Tomorrow" },
        { question: "Refund?", expected: null },
      ],
      problems: [],
    });
  });

  it("reads tab-separated text pasted from a spreadsheet, quoted line breaks included", () => {
    const pasted = 'question\texpected\n"two\nlines"\tyes\n';
    expect(parseCsv(pasted, ["question", "expected"]).rows).toEqual([{ question: "two\nlines", expected: "yes" }]);
  });

  it("reports malformed lines with their line number", () => {
    const { problems } = parseCsv("a,b\n1,2\n3,4,5\n", ["a", "b"]);
    expect(problems).toEqual([expect.stringMatching(/^Line 3: Too many fields/)]);
  });

  it("cuts rows into batches of at most 100", () => {
    const rows = Array.from({ length: 250 }, (_, i) => i);
    expect(batches(rows).map((part) => part.length)).toEqual([100, 100, 50]);
    expect(batches([])).toEqual([]);
  });
});

const row = (values: Schemas["DatasetRowValues"], computed?: Schemas["ComputedCells"]): Schemas["DatasetRow"] => ({
  id: "row_1",
  values,
  ...(computed && { computed }),
  createdAt: 0,
  updatedAt: 0,
});
const cell = (status: Schemas["ComputedCellStatus"], extra: Partial<Schemas["ComputedCell"]> = {}) => ({
  status,
  reason: null,
  latency: null,
  cost: null,
  updatedAt: 0,
  ...extra,
});

describe("cells", () => {
  it("turns typed text into a value of the cell's former kind, empty into null", () => {
    expect(cellValue("", "x")).toBeNull();
    expect(cellValue("4", 3)).toBe(4);
    expect(cellValue("four", 3)).toBe("four");
    expect(cellValue("false", true)).toBe(false);
    expect(cellValue("4", "3")).toBe("4");
    expect(cellValue("4", null)).toBe("4");
  });

  it("sends only the cells that changed", () => {
    expect(changedValues(row({ a: "same", b: 3, c: null }), { a: "same", b: "5", c: "" })).toEqual({ b: 5 });
  });

  it("says whether any cell is pending and how a computed cell stands", () => {
    expect(anyPending([row({}), row({}, { c: cell("done") })])).toBe(false);
    expect(anyPending([row({}, { c: cell("done"), d: cell("pending") })])).toBe(true);
    expect(computedStatusText(cell("done", { latency: 412, cost: 0.000021 }))).toBe("done · 412 ms · $0.000021");
    expect(computedStatusText(cell("failed", { reason: "The endpoint answered 503." }))).toBe(
      "failed: The endpoint answered 503.",
    );
    expect(computedStatusText(cell("pending"))).toBe("pending");
  });
});

describe("rows from spans", () => {
  it("lists a span's variables", () => {
    const content = { type: "Model", variables: { order_id: { modality: "text", value: "8812" } } };
    expect(spanVariableNames(content as unknown as Schemas["LogSpanContent"])).toEqual(["order_id"]);
    expect(spanVariableNames({ type: "Tool" } as unknown as Schemas["LogSpanContent"])).toEqual([]);
  });

  it("names the missing columns from the API's error details", () => {
    const error = {
      error: {
        code: "VALIDATION_ERROR",
        message: "Invalid request.",
        details: [
          { field: "outputColumn", issue: 'The dataset has no column "answer".' },
          { field: "columns.order_id", issue: 'The dataset has no column "order_id".' },
          { field: "spans.span_1", issue: "Its output is over 100000 characters." },
        ],
      },
    };
    expect(missingColumns(error, { outputColumn: "answer" })).toEqual(["answer", "order_id"]);
    expect(missingColumns(new Error("network"))).toEqual([]);
  });
});
