import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { $api, errorMessage } from "../api.ts";
import { formatTime } from "../format.ts";
import { useWorkspace } from "../layout.tsx";
import { ReadRefused, useSettingsAccess } from "./settings.tsx";

/** The project's deployment environments. The API has no delete operation for them, so neither has the console. */
export function Environments() {
  const { projectId } = useWorkspace();
  const { canEdit } = useSettingsAccess();
  const queryClient = useQueryClient();
  const path = { projectId: projectId as string };
  const environments = $api.useQuery("get", "/projects/{projectId}/deployment-environments", {
    params: { path, query: { limit: 200 } },
  });
  const create = $api.useMutation("post", "/projects/{projectId}/deployment-environments");
  const [name, setName] = useState("");

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate(
      { params: { path }, body: { name: name.trim() } },
      {
        onSuccess: () => {
          setName("");
          void queryClient.invalidateQueries({ queryKey: ["get", "/projects/{projectId}/deployment-environments"] });
        },
      },
    );
  }

  return (
    <>
      <h2>Deployment environments</h2>
      {environments.error && <ReadRefused what="environments" error={environments.error} />}
      <table className="grid" aria-label="Environments">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {environments.data?.deploymentEnvironments.map((environment) => (
            <tr key={environment.id}>
              <td>{environment.name}</td>
              <td>{formatTime(environment.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {canEdit && (
        <form className="inline" onSubmit={submit} aria-label="New environment">
          <label>
            Environment name{" "}
            <input value={name} onChange={(event) => setName(event.target.value)} required maxLength={50} />
          </label>
          <button type="submit" disabled={create.isPending || name.trim() === ""}>
            Add environment
          </button>
          {create.error && (
            <p role="alert" className="error">
              {errorMessage(create.error)}
            </p>
          )}
        </form>
      )}
    </>
  );
}
