import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { $api, type Schemas } from "../api.ts";
import { ErrorAlert, FormActions } from "../forms.tsx";
import { ApiColumnHeaders } from "./api-column-headers.tsx";
import { refreshDataset } from "./dataset-editor.tsx";

type Column = Schemas["DatasetColumn"];
type ColumnType = Column["type"];

/** What a computed column computes, in a few words. */
function columnSource(column: Column, promptTitles: Map<string, string>): string {
  if (column.type === "prompt") return `“${promptTitles.get(column.settings.promptId) ?? column.settings.promptId}”`;
  if (column.type === "api") {
    const names = [...Object.keys(column.settings.headers), ...(column.settings.secretHeaderNames ?? [])];
    return `${column.settings.method} ${column.settings.url}${names.length > 0 ? ` · headers: ${names.join(", ")}` : ""}`;
  }
  return "";
}

/** The dataset's columns: rename and delete each, add static, prompt or api columns. */
export function ColumnsPanel({
  datasetId,
  projectId,
  columns,
  canEdit,
}: {
  datasetId: string;
  projectId: string;
  columns: Column[];
  canEdit: boolean;
}) {
  const queryClient = useQueryClient();
  const prompts = $api.useQuery("get", "/prompts", { params: { query: { projectId, limit: 200 } } });
  const promptTitles = new Map(prompts.data?.prompts.map((prompt) => [prompt.id, prompt.title || prompt.id]));
  const rename = $api.useMutation("patch", "/datasets/{datasetId}/columns/{columnId}");
  const remove = $api.useMutation("delete", "/datasets/{datasetId}/columns/{columnId}");
  const [names, setNames] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<unknown>(null);
  const [headersOf, setHeadersOf] = useState<string | null>(null);

  async function run(change: () => Promise<unknown>) {
    setFailure(null);
    try {
      await change();
      await refreshDataset(queryClient);
    } catch (error) {
      setFailure(error);
    }
  }

  const renameColumn = (column: Column) =>
    run(async () => {
      await rename.mutateAsync({
        params: { path: { datasetId, columnId: column.id } },
        body: { name: (names[column.id] ?? column.name).trim() },
      });
      setNames(({ [column.id]: _, ...rest }) => rest);
    });
  const deleteColumn = (column: Column) => {
    if (!window.confirm(`Delete the column "${column.name}" and its cell in every row?`)) return;
    void run(() => remove.mutateAsync({ params: { path: { datasetId, columnId: column.id } } }));
  };

  return (
    <section aria-labelledby="columns-title" className="columns-panel">
      <h2 id="columns-title">Columns</h2>
      <ErrorAlert error={failure} />
      {columns.length === 0 && <p className="hint">No columns yet.</p>}
      <ul className="column-list">
        {columns.map((column) => {
          const name = names[column.id] ?? column.name;
          return (
            <li key={column.id}>
              {canEdit ? (
                <input
                  aria-label={`Name of column ${column.name}`}
                  value={name}
                  maxLength={100}
                  onChange={(event) => setNames({ ...names, [column.id]: event.target.value })}
                />
              ) : (
                <strong>{column.name}</strong>
              )}{" "}
              <small className="column-type">{column.type}</small> {columnSource(column, promptTitles)}
              {canEdit && (
                <>
                  {" "}
                  <button
                    type="button"
                    disabled={name.trim() === "" || name.trim() === column.name || rename.isPending}
                    onClick={() => void renameColumn(column)}
                    aria-label={`Rename column ${column.name}`}
                  >
                    Rename
                  </button>{" "}
                  <button
                    type="button"
                    disabled={remove.isPending}
                    onClick={() => deleteColumn(column)}
                    aria-label={`Delete column ${column.name}`}
                  >
                    Delete
                  </button>
                  {column.type === "api" && (
                    <>
                      {" "}
                      <button
                        type="button"
                        aria-expanded={headersOf === column.id}
                        onClick={() => setHeadersOf(headersOf === column.id ? null : column.id)}
                        aria-label={`Edit headers of column ${column.name}`}
                      >
                        Headers
                      </button>
                    </>
                  )}
                </>
              )}
              {canEdit && column.type === "api" && headersOf === column.id && (
                <ApiColumnHeaders
                  key={column.updatedAt}
                  datasetId={datasetId}
                  column={column}
                  onDone={(saved) => {
                    setHeadersOf(null);
                    if (saved) void refreshDataset(queryClient);
                  }}
                />
              )}
            </li>
          );
        })}
      </ul>
      {canEdit && (
        <NewColumn
          datasetId={datasetId}
          prompts={prompts.data?.prompts ?? []}
          onAdded={() => refreshDataset(queryClient)}
        />
      )}
    </section>
  );
}

function NewColumn({
  datasetId,
  prompts,
  onAdded,
}: {
  datasetId: string;
  prompts: Schemas["PromptSummary"][];
  onAdded: () => Promise<void>;
}) {
  const create = $api.useMutation("post", "/datasets/{datasetId}/columns");
  const [name, setName] = useState("");
  const [type, setType] = useState<ColumnType>("static");
  const [promptId, setPromptId] = useState("");
  const [method, setMethod] = useState<Schemas["ApiColumnMethod"]>("GET");
  const [url, setUrl] = useState("");

  function input(): Schemas["DatasetColumnInput"] {
    const trimmed = name.trim();
    if (type === "prompt") return { name: trimmed, type, settings: { promptId: promptId || (prompts[0]?.id ?? "") } };
    if (type === "api") return { name: trimmed, type, settings: { method, url: url.trim() } };
    return { name: trimmed, type };
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    const created = await create
      .mutateAsync({ params: { path: { datasetId } }, body: { columns: [input()] } })
      // The refusal is shown from the mutation's error below.
      .catch(() => null);
    if (!created) return;
    setName("");
    await onAdded();
  }

  return (
    <form className="inline new-column" onSubmit={submit} aria-label="New column">
      <label>
        Column name <input value={name} onChange={(event) => setName(event.target.value)} required maxLength={100} />
      </label>
      <label>
        Type{" "}
        <select value={type} onChange={(event) => setType(event.target.value as ColumnType)}>
          <option value="static">static (values you write)</option>
          <option value="prompt">prompt (a prompt's answer)</option>
          <option value="api">api (an HTTP call's response)</option>
        </select>
      </label>
      {type === "prompt" && (
        <label>
          Prompt{" "}
          <select
            value={promptId || prompts[0]?.id || ""}
            onChange={(event) => setPromptId(event.target.value)}
            required
          >
            {prompts.map((prompt) => (
              <option key={prompt.id} value={prompt.id}>
                {prompt.title || prompt.id}
              </option>
            ))}
          </select>
        </label>
      )}
      {type === "api" && (
        <>
          <label>
            Method{" "}
            <select value={method} onChange={(event) => setMethod(event.target.value as Schemas["ApiColumnMethod"])}>
              <option>GET</option>
              <option>POST</option>
            </select>
          </label>
          <label>
            URL{" "}
            <input
              type="url"
              value={url}
              placeholder="https://example.com/items/{{id}}"
              onChange={(event) => setUrl(event.target.value)}
              required
            />
          </label>
        </>
      )}
      <FormActions submit="Add column" disabled={create.isPending || name.trim() === ""} />
      <ErrorAlert error={create.error} />
    </form>
  );
}
