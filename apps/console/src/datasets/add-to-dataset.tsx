import { useQueryClient } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { type FormEvent, useId, useState } from "react";
import { $api, errorMessage, type Schemas } from "../api.ts";
import { useWorkspace } from "../layout.tsx";
import { missingColumns, spanVariableNames } from "./span-rows.ts";

/**
 * "Add to dataset" for one span of the trace view: the span's variables fill the columns of the same name, its
 * output (and optionally its input) the columns chosen here. Columns the dataset lacks are named, not created.
 */
export function AddToDataset({ span }: { span: Schemas["LogSpan"] }) {
  const { canEdit } = useWorkspace();
  const [open, setOpen] = useState(false);
  const formId = useId();
  if (!canEdit) return null;
  return (
    <div className="add-to-dataset">
      <button type="button" aria-expanded={open} aria-controls={formId} onClick={() => setOpen(!open)}>
        Add to dataset
      </button>
      {/* Remounted per span so a previous span's outcome is not shown for this one. */}
      {open && <AddSpanForm key={span.id} id={formId} span={span} />}
    </div>
  );
}

function AddSpanForm({ id, span }: { id: string; span: Schemas["LogSpan"] }) {
  const { projectId } = useWorkspace();
  const queryClient = useQueryClient();
  const datasets = $api.useQuery("get", "/datasets", {
    params: { query: { projectId: projectId as string, limit: 200 } },
  });
  const [datasetId, setDatasetId] = useState("");
  const chosenId = datasetId || datasets.data?.datasets[0]?.id || "";
  const dataset = $api.useQuery(
    "get",
    "/datasets/{datasetId}",
    { params: { path: { datasetId: chosenId } } },
    { enabled: chosenId !== "" },
  );
  const add = $api.useMutation("post", "/datasets/{datasetId}/rows/from-spans");
  const [outputColumn, setOutputColumn] = useState("");
  const [inputColumn, setInputColumn] = useState("");
  const [added, setAdded] = useState<string | null>(null);

  const columnNames = new Set(dataset.data?.columns.map((column) => column.name));
  const variables = spanVariableNames(span.parsedContent);
  const targets = { ...(outputColumn && { outputColumn }), ...(inputColumn && { inputColumn }) };

  async function submit(event: FormEvent) {
    event.preventDefault();
    setAdded(null);
    const created = await add
      .mutateAsync({ params: { path: { datasetId: chosenId } }, body: { spanIds: [span.id], ...targets } })
      // The refusal is shown from the mutation's error below.
      .catch(() => null);
    if (!created) return;
    await queryClient.invalidateQueries({ queryKey: ["get", "/datasets"] });
    setAdded(chosenId);
  }

  const missing = add.error ? missingColumns(add.error, targets) : [];
  const columnChoice = (label: string, value: string, set: (name: string) => void) => (
    <label>
      {label}{" "}
      <select value={value} onChange={(event) => set(event.target.value)}>
        <option value="">none</option>
        {dataset.data?.columns.map((column) => (
          <option key={column.id} value={column.name}>
            {column.name}
          </option>
        ))}
      </select>
    </label>
  );

  if (datasets.data?.datasets.length === 0) {
    return (
      <p id={id} className="hint">
        This project has no dataset yet:{" "}
        <Link to="/datasets" search={{ project: projectId }}>
          create one
        </Link>
        .
      </p>
    );
  }
  return (
    <form id={id} className="add-span-form" onSubmit={submit} aria-label="Add span to dataset">
      <label>
        Dataset{" "}
        <select
          value={chosenId}
          onChange={(event) => {
            setDatasetId(event.target.value);
            setOutputColumn("");
            setInputColumn("");
          }}
        >
          {datasets.data?.datasets.map((d) => (
            <option key={d.id} value={d.id}>
              {d.title}
            </option>
          ))}
        </select>
      </label>
      {columnChoice("Output to column", outputColumn, setOutputColumn)}
      {columnChoice("Input to column", inputColumn, setInputColumn)}
      {variables.length > 0 ? (
        <table className="grid variable-map" aria-label="Variables to columns">
          <thead>
            <tr>
              <th scope="col">Variable</th>
              <th scope="col">Column</th>
            </tr>
          </thead>
          <tbody>
            {variables.map((name) => (
              <tr key={name}>
                <td>{name}</td>
                <td>{columnNames.has(name) ? name : <span className="error">no column “{name}”</span>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="hint">The span has no variables: only the columns chosen above are filled.</p>
      )}
      <button type="submit" disabled={add.isPending || chosenId === ""}>
        Add span to dataset
      </button>
      {added && (
        <p role="status" className="notice">
          Added a row to{" "}
          <Link to="/datasets/$datasetId" params={{ datasetId: added }} search={{ project: projectId }}>
            {datasets.data?.datasets.find((d) => d.id === added)?.title ?? "the dataset"}
          </Link>
          .
        </p>
      )}
      {add.error && (
        <p role="alert" className="error">
          {missing.length > 0
            ? `The dataset has no column ${missing.map((name) => `“${name}”`).join(", ")}: add ${
                missing.length === 1 ? "it" : "them"
              } to the dataset first, or choose other columns.`
            : errorMessage(add.error)}
        </p>
      )}
    </form>
  );
}
