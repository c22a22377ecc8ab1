import { useQueryClient } from "@tanstack/react-query";
import { type ChangeEvent, useState } from "react";
import { $api, errorMessage, type Schemas } from "../api.ts";
import { batches, parseCsv } from "./csv.ts";
import { refreshDataset } from "./dataset-editor.tsx";

/**
 * Rows from a CSV file or from text pasted (from a spreadsheet, tab-separated, works too): the first line names
 * the columns. A preview says which headers match a column; the others may be created as static columns.
 */
export function CsvImport({ datasetId, columns }: { datasetId: string; columns: Schemas["DatasetColumn"][] }) {
  const queryClient = useQueryClient();
  const createColumns = $api.useMutation("post", "/datasets/{datasetId}/columns");
  const createRows = $api.useMutation("post", "/datasets/{datasetId}/rows");
  const [text, setText] = useState("");
  const [createMissing, setCreateMissing] = useState(true);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  const names = columns.map((column) => column.name);
  const preview = text.trim() === "" ? null : parseCsv(text, names);
  const matched = preview?.headers.filter((header) => names.includes(header)) ?? [];
  // Rows that would carry no value (no header names a column, and none is to be created) are not imported.
  const importable =
    preview !== null &&
    preview.rows.length > 0 &&
    (matched.length > 0 || (createMissing && preview.unknownHeaders.length > 0));

  async function readFile(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    if (file) setText(await file.text());
  }

  async function importRows() {
    if (!preview) return;
    setBusy(true);
    setNotice(null);
    setFailure(null);
    let added = 0;
    try {
      let { rows } = preview;
      if (createMissing && preview.unknownHeaders.length > 0) {
        await createColumns.mutateAsync({
          params: { path: { datasetId } },
          body: { columns: preview.unknownHeaders.map((name) => ({ name, type: "static" as const })) },
        });
        rows = parseCsv(text, [...names, ...preview.unknownHeaders]).rows;
      }
      // The API takes 100 rows a request, each request all or none: a failure stops after the batches before it.
      for (const part of batches(rows)) {
        await createRows.mutateAsync({
          params: { path: { datasetId }, query: { valuesBy: "columnName" } },
          body: { rows: part.map((values) => ({ values })) },
        });
        added += part.length;
      }
      setText("");
      setNotice(`Imported ${added} ${added === 1 ? "row" : "rows"}.`);
    } catch (error) {
      setFailure(`${errorMessage(error)} ${added > 0 ? `(${added} rows were imported before it.)` : ""}`.trim());
    } finally {
      setBusy(false);
      await refreshDataset(queryClient);
    }
  }

  return (
    <section aria-labelledby="csv-title" className="csv-import">
      <h2 id="csv-title">Import CSV</h2>
      <p className="hint">The first line names the columns. Paste from a spreadsheet or choose a file.</p>
      <label>
        CSV file <input type="file" accept=".csv,.tsv,text/csv,text/tab-separated-values" onChange={readFile} />
      </label>
      <label className="csv-text">
        CSV text
        <textarea value={text} rows={6} onChange={(event) => setText(event.target.value)} />
      </label>
      {preview && (
        <div className="csv-preview" aria-live="polite">
          <p>
            {preview.rows.length} {preview.rows.length === 1 ? "row" : "rows"}; columns:{" "}
            {matched.join(", ") || "none matched"}.
          </p>
          {preview.unknownHeaders.length > 0 && (
            <label>
              <input
                type="checkbox"
                checked={createMissing}
                onChange={(event) => setCreateMissing(event.target.checked)}
              />{" "}
              Create the missing columns {preview.unknownHeaders.join(", ")} (else their cells are skipped)
            </label>
          )}
          {preview.problems.length > 0 && (
            <ul className="error">
              {preview.problems.map((problem) => (
                <li key={problem}>{problem}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      <button type="button" onClick={() => void importRows()} disabled={busy || !importable}>
        Import rows
      </button>
      {notice && (
        <p role="status" className="notice">
          {notice}
        </p>
      )}
      {failure && (
        <p role="alert" className="error">
          {failure}
        </p>
      )}
    </section>
  );
}
