import { describe, expect, it } from "vitest";
import { DEFAULT_COLUMNS, readColumns, toggleColumn } from "./columns.ts";

describe("trace list columns", () => {
  it("starts from the default when nothing readable is stored", () => {
    expect(readColumns(null)).toEqual(DEFAULT_COLUMNS);
    expect(readColumns("not json")).toEqual(DEFAULT_COLUMNS);
    expect(readColumns('{"cost":true}')).toEqual(DEFAULT_COLUMNS);
  });

  it("reads a stored choice in the table's order, dropping unknown ids", () => {
    expect(readColumns('["scores","cost","colour"]')).toEqual(["cost", "scores"]);
    expect(readColumns("[]")).toEqual([]);
  });

  it("shows and hides one column, keeping the table's order", () => {
    expect(toggleColumn(["latency", "tags"], "user", true)).toEqual(["latency", "user", "tags"]);
    expect(toggleColumn(["latency", "user", "tags"], "latency", false)).toEqual(["user", "tags"]);
    expect(toggleColumn(["tags"], "tags", true)).toEqual(["tags"]);
  });
});
