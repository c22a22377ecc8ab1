import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { $api, errorMessage, type Schemas } from "../api.ts";
import { formatTime } from "../format.ts";
import { ReadRefused, useSettingsAccess } from "./settings.tsx";

const ROLES: readonly Schemas["ApiKeyRole"][] = ["full", "read-only", "ingest-only"];

function keyState(key: Schemas["ApiKey"]): string {
  if (key.revokedAt !== null) return `revoked ${formatTime(key.revokedAt)}`;
  if (key.expiresAt !== null && key.expiresAt <= Date.now()) return "expired";
  return "active";
}

/**
 * The workspace's API keys: only admin keys (full, every project) may list, create or revoke them, so other keys
 * get an explanation instead of the table. A new key's secret is shown once, right after it is created.
 */
export function ApiKeys() {
  const { isAdmin } = useSettingsAccess();
  const queryClient = useQueryClient();
  const keys = $api.useQuery("get", "/api-keys", { params: { query: { limit: 200 } } }, { enabled: isAdmin });
  const projects = $api.useQuery("get", "/projects", { params: { query: { limit: 200 } } });
  const create = $api.useMutation("post", "/api-keys");
  const revoke = $api.useMutation("delete", "/api-keys/{apiKeyId}");
  const [name, setName] = useState("");
  const [role, setRole] = useState<Schemas["ApiKeyRole"]>("read-only");
  const [projectIds, setProjectIds] = useState<string[]>([]);
  const [created, setCreated] = useState<Schemas["ApiKeyWithSecret"] | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["get", "/api-keys"] });
  const titleOf = (id: string) => projects.data?.projects.find((project) => project.id === id)?.title ?? id;

  if (!isAdmin) {
    return (
      <>
        <h2>API keys</h2>
        <p role="alert" className="error">
          Only an admin key (the full role, not restricted to some projects) can list, create or revoke API keys.
        </p>
      </>
    );
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const body = { name: name.trim(), role, ...(projectIds.length > 0 && { projectIds }) };
    create.mutate(
      { body },
      {
        onSuccess: (key) => {
          setCreated(key);
          setName("");
          setProjectIds([]);
          void refresh();
        },
      },
    );
  }

  return (
    <>
      <h2>API keys</h2>
      {keys.error && <ReadRefused what="API keys" error={keys.error} />}
      {created && (
        <div className="notice secret" role="status">
          <p>The key “{created.name}” was created. Copy it now: it is not shown again.</p>
          <output aria-label="New API key">{created.key}</output>{" "}
          <button type="button" onClick={() => setCreated(null)}>
            Done
          </button>
        </div>
      )}
      <table className="grid" aria-label="API keys">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Role</th>
            <th scope="col">Projects</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">State</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {keys.data?.apiKeys.map((key) => (
            <tr key={key.id}>
              <td>{key.name}</td>
              <td>{key.role}</td>
              <td>{key.projectIds === null ? "all" : key.projectIds.map(titleOf).join(", ")}</td>
              <td>{formatTime(key.createdAt)}</td>
              <td>{key.lastUsedAt === null ? "never" : formatTime(key.lastUsedAt)}</td>
              <td>{keyState(key)}</td>
              <td>
                {key.revokedAt === null && (
                  <button
                    type="button"
                    aria-label={`Revoke ${key.name}`}
                    onClick={() => revoke.mutate({ params: { path: { apiKeyId: key.id } } }, { onSuccess: refresh })}
                  >
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {revoke.error && (
        <p role="alert" className="error">
          {errorMessage(revoke.error)}
        </p>
      )}
      <form className="stacked" onSubmit={submit} aria-label="New API key">
        <h3>New API key</h3>
        <label>
          Key name <input value={name} onChange={(event) => setName(event.target.value)} required maxLength={128} />
        </label>
        <label>
          Role{" "}
          <select value={role} onChange={(event) => setRole(event.target.value as Schemas["ApiKeyRole"])}>
            {ROLES.map((candidate) => (
              <option key={candidate}>{candidate}</option>
            ))}
          </select>
        </label>
        <fieldset>
          <legend>Projects (none checked: every project)</legend>
          {projects.data?.projects.map((project) => (
            <label key={project.id} className="check">
              <input
                type="checkbox"
                checked={projectIds.includes(project.id)}
                onChange={(event) =>
                  setProjectIds(
                    event.target.checked ? [...projectIds, project.id] : projectIds.filter((id) => id !== project.id),
                  )
                }
              />{" "}
              {project.title}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={create.isPending || name.trim() === ""}>
          Create key
        </button>
        {create.error && (
          <p role="alert" className="error">
            {errorMessage(create.error)}
          </p>
        )}
      </form>
    </>
  );
}
