import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { $api, errorMessage, type Schemas } from "../api.ts";
import { refreshDataset } from "./dataset-editor.tsx";
import { missingColumns } from "./span-rows.ts";

type Column = Schemas["DatasetColumn"];
const STATUSES: readonly Schemas["LogStatus"][] = ["success", "failure", "aborted", "cancelled", "pending", "unknown"];

/**
 * Adds a row per span found by a search of the dataset's project (`createDatasetRowsFromSpans` with `search`):
 * the first `maxRows` spans in the search's order. Spans' variables fill the columns of the same name; output and
 * input go to the columns chosen here. The API adds nothing when a column is missing, and says which.
 */
export function SpansImport({
  datasetId,
  projectId,
  columns,
}: {
  datasetId: string;
  projectId: string;
  columns: Column[];
}) {
  const queryClient = useQueryClient();
  const add = $api.useMutation("post", "/datasets/{datasetId}/rows/from-spans");
  const [name, setName] = useState("");
  const [model, setModel] = useState("");
  const [status, setStatus] = useState<Schemas["LogStatus"] | "">("success");
  const [maxRows, setMaxRows] = useState("100");
  const [outputColumn, setOutputColumn] = useState("");
  const [inputColumn, setInputColumn] = useState("");
  const [added, setAdded] = useState<number | null>(null);
  const targets = { ...(outputColumn && { outputColumn }), ...(inputColumn && { inputColumn }) };

  async function submit(event: FormEvent) {
    event.preventDefault();
    setAdded(null);
    const search = {
      projectId,
      ...(name.trim() && { name: name.trim() }),
      ...(model.trim() && { model: model.trim() }),
      ...(status && { status }),
    };
    const created = await add
      .mutateAsync({ params: { path: { datasetId } }, body: { search, maxRows: Number(maxRows), ...targets } })
      // The refusal is shown from the mutation's error below.
      .catch(() => null);
    if (!created) return;
    await refreshDataset(queryClient);
    setAdded(created.rows.length);
  }

  const missing = add.error ? missingColumns(add.error, targets) : [];
  const columnChoice = (label: string, value: string, set: (column: string) => void) => (
    <label>
      {label}{" "}
      <select value={value} onChange={(event) => set(event.target.value)}>
        <option value="">none</option>
        {columns.map((column) => (
          <option key={column.id} value={column.name}>
            {column.name}
          </option>
        ))}
      </select>
    </label>
  );

  return (
    <form className="stacked" onSubmit={submit} aria-labelledby="spans-import-title">
      <h2 id="spans-import-title">Add rows from spans</h2>
      <p className="hint">
        One row per span the search finds, in its order. Span variables fill the columns of the same name.
      </p>
      <label>
        Span or trace name contains <input value={name} onChange={(event) => setName(event.target.value)} />
      </label>
      <label>
        Model contains <input value={model} onChange={(event) => setModel(event.target.value)} />
      </label>
      <label>
        Status{" "}
        <select value={status} onChange={(event) => setStatus(event.target.value as Schemas["LogStatus"] | "")}>
          <option value="">any</option>
          {STATUSES.map((candidate) => (
            <option key={candidate}>{candidate}</option>
          ))}
        </select>
      </label>
      <label>
        At most (rows){" "}
        <input
          type="number"
          min={1}
          max={1000}
          value={maxRows}
          onChange={(event) => setMaxRows(event.target.value)}
          required
        />
      </label>
      {columnChoice("Span output to column", outputColumn, setOutputColumn)}
      {columnChoice("Span input to column", inputColumn, setInputColumn)}
      <div className="actions">
        <button type="submit" disabled={add.isPending}>
          Add matching spans
        </button>
      </div>
      {added !== null && (
        <p role="status" className="notice">
          {added === 0 ? "No span matched: nothing was added." : `Added ${added} ${added === 1 ? "row" : "rows"}.`}
        </p>
      )}
      {add.error && (
        <p role="alert" className="error">
          {missing.length > 0
            ? `Nothing was added: the dataset has no column ${missing.map((column) => `“${column}”`).join(", ")}.`
            : errorMessage(add.error)}
        </p>
      )}
    </form>
  );
}
