import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { $api, type Schemas } from "../api.ts";
import { ErrorAlert, FormActions } from "../forms.tsx";
import { refreshDataset } from "./dataset-editor.tsx";

/** Renames the dataset and changes its description; a Cancel puts the fields back. */
export function DatasetDetails({ dataset, onClose }: { dataset: Schemas["Dataset"]; onClose: () => void }) {
  const queryClient = useQueryClient();
  const update = $api.useMutation("patch", "/datasets/{datasetId}");
  const [title, setTitle] = useState(dataset.title);
  const [description, setDescription] = useState(dataset.description);

  function submit(event: FormEvent) {
    event.preventDefault();
    // Only what changed is sent: the API refuses an empty change, and a title left as it is need not be checked.
    const body = {
      ...(title.trim() !== dataset.title && { title: title.trim() }),
      ...(description !== dataset.description && { description }),
    };
    if (Object.keys(body).length === 0) return onClose();
    update.mutate(
      { params: { path: { datasetId: dataset.id } }, body },
      {
        onSuccess: async () => {
          await refreshDataset(queryClient);
          onClose();
        },
      },
    );
  }

  return (
    <form className="stacked" onSubmit={submit} aria-label="Dataset details">
      <label>
        Dataset title <input value={title} onChange={(event) => setTitle(event.target.value)} required maxLength={50} />
      </label>
      <label>
        Description{" "}
        <input value={description} onChange={(event) => setDescription(event.target.value)} maxLength={100} />
      </label>
      <FormActions submit="Save details" disabled={update.isPending || title.trim() === ""} onCancel={onClose} />
      <ErrorAlert error={update.error} />
    </form>
  );
}
