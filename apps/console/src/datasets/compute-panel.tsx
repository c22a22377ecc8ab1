import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { $api, errorMessage, type Schemas } from "../api.ts";
import { isComputed } from "./cells.ts";
import { refreshDataset } from "./dataset-editor.tsx";

type RunMode = Schemas["DynamicColumnsRunMode"];
const RUN_MODES: { value: RunMode; label: string }[] = [
  { value: "all", label: "every row" },
  { value: "failed", label: "failed cells only" },
  { value: "first", label: "the first row only (a try)" },
];

/**
 * Queues the computation of the dataset's `prompt` and `api` cells; the rows table then shows each cell pending
 * and polls until none is.
 */
export function ComputePanel({ datasetId, columns }: { datasetId: string; columns: Schemas["DatasetColumn"][] }) {
  const queryClient = useQueryClient();
  const computed = columns.filter(isComputed);
  const fetchCells = $api.useMutation("post", "/datasets/{datasetId}/dynamic-columns/fetch");
  const [columnId, setColumnId] = useState("");
  const [runMode, setRunMode] = useState<RunMode>("all");
  const [notice, setNotice] = useState<string | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setNotice(null);
    const queued = await fetchCells
      .mutateAsync({ params: { path: { datasetId } }, body: { runMode, ...(columnId && { columnIds: [columnId] }) } })
      // The refusal is shown from the mutation's error below.
      .catch(() => null);
    if (!queued) return;
    const cells = queued.columnRuns.reduce((sum, run) => sum + run.queuedRowsCount, 0);
    setNotice(`Queued ${cells} ${cells === 1 ? "cell" : "cells"}.`);
    await refreshDataset(queryClient);
  }

  return (
    <form className="inline compute" onSubmit={submit} aria-label="Compute columns">
      <label>
        Computed column{" "}
        <select value={columnId} onChange={(event) => setColumnId(event.target.value)}>
          <option value="">all computed columns</option>
          {computed.map((column) => (
            <option key={column.id} value={column.id}>
              {column.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        For{" "}
        <select value={runMode} onChange={(event) => setRunMode(event.target.value as RunMode)}>
          {RUN_MODES.map((mode) => (
            <option key={mode.value} value={mode.value}>
              {mode.label}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" disabled={fetchCells.isPending}>
        Compute
      </button>
      {notice && (
        <span role="status" className="notice">
          {notice}
        </span>
      )}
      {fetchCells.error && (
        <span role="alert" className="error">
          {errorMessage(fetchCells.error)}
        </span>
      )}
    </form>
  );
}
