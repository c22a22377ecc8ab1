import { useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate } from "@tanstack/react-router";
import { type FormEvent, useState } from "react";
import { $api, errorMessage } from "../api.ts";
import { formatTime } from "../format.ts";
import { useWorkspace } from "../layout.tsx";

/** The project's datasets; a full key may create and delete them. */
export function DatasetList() {
  const { projectId, canEdit } = useWorkspace();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const datasets = $api.useQuery("get", "/datasets", {
    params: { query: { projectId: projectId as string, limit: 200 } },
  });
  const create = $api.useMutation("post", "/datasets");
  const remove = $api.useMutation("delete", "/datasets/{datasetId}");
  const [title, setTitle] = useState("");

  async function submit(event: FormEvent) {
    event.preventDefault();
    const created = await create
      .mutateAsync({ body: { projectId: projectId as string, title: title.trim() } })
      // The refusal is shown from the mutation's error below.
      .catch(() => null);
    if (!created) return;
    await queryClient.invalidateQueries({ queryKey: ["get", "/datasets"] });
    await navigate({ to: "/datasets/$datasetId", params: { datasetId: created.id }, search: { project: projectId } });
  }

  async function deleteDataset(datasetId: string, datasetTitle: string) {
    if (!window.confirm(`Delete the dataset "${datasetTitle}" and all its rows?`)) return;
    // A refusal (a dataset an evaluator still uses: 409) is shown from the mutation's error below.
    const removed = await remove.mutateAsync({ params: { path: { datasetId } } }).then(
      () => true,
      () => false,
    );
    if (removed) await queryClient.invalidateQueries({ queryKey: ["get", "/datasets"] });
  }

  return (
    <section aria-labelledby="datasets-title">
      <h1 id="datasets-title">Datasets</h1>
      {canEdit && (
        <form className="inline" onSubmit={submit} aria-label="New dataset">
          <label>
            Title <input value={title} onChange={(event) => setTitle(event.target.value)} required maxLength={50} />
          </label>
          <button type="submit" disabled={create.isPending || title.trim() === ""}>
            New dataset
          </button>
        </form>
      )}
      {(create.error || remove.error) && (
        <p role="alert" className="error">
          {errorMessage(create.error ?? remove.error)}
        </p>
      )}
      {datasets.isLoading && <p>Loading…</p>}
      {datasets.error && (
        <p role="alert" className="error">
          {errorMessage(datasets.error)}
        </p>
      )}
      <table className="grid" aria-label="Datasets">
        <thead>
          <tr>
            <th scope="col">Title</th>
            <th scope="col">Rows</th>
            <th scope="col">Updated</th>
            {canEdit && (
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {datasets.data?.datasets.map((dataset) => (
            <tr key={dataset.id}>
              <td>
                <Link to="/datasets/$datasetId" params={{ datasetId: dataset.id }} search={{ project: projectId }}>
                  {dataset.title}
                </Link>
              </td>
              <td>{dataset.rowCount}</td>
              <td>{formatTime(dataset.updatedAt)}</td>
              {canEdit && (
                <td>
                  <button
                    type="button"
                    onClick={() => void deleteDataset(dataset.id, dataset.title)}
                    disabled={remove.isPending}
                    aria-label={`Delete dataset ${dataset.title}`}
                  >
                    Delete
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
