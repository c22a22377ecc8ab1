import { type FormEvent, useState } from "react";
import { $api, type Schemas } from "../api.ts";
import { formatTime } from "../format.ts";
import { ErrorAlert, FormActions, Grid } from "../forms.tsx";
import { RowButton, SecretNotice, useRefresh } from "./kit.tsx";
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
  const keys = $api.useQuery("get", "/api-keys", { params: { query: { limit: 200 } } }, { enabled: isAdmin });
  const projects = $api.useQuery("get", "/projects", { params: { query: { limit: 200 } } });
  const create = $api.useMutation("post", "/api-keys");
  const revoke = $api.useMutation("delete", "/api-keys/{apiKeyId}");
  const [name, setName] = useState("");
  const [role, setRole] = useState<Schemas["ApiKeyRole"]>("read-only");
  const [projectIds, setProjectIds] = useState<string[]>([]);
  const [created, setCreated] = useState<Schemas["ApiKeyWithSecret"] | null>(null);
  const refresh = useRefresh("/api-keys");
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
        <SecretNotice
          message={`The key “${created.name}” was created. Copy it now: it is not shown again.`}
          label="New API key"
          secret={created.key}
          onDone={() => setCreated(null)}
        />
      )}
      <Grid label="API keys" columns={["Name", "Role", "Projects", "Created", "Last used", "State", "Actions"]}>
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
                <RowButton
                  action="Revoke"
                  name={key.name}
                  onClick={() => revoke.mutate({ params: { path: { apiKeyId: key.id } } }, { onSuccess: refresh })}
                />
              )}
            </td>
          </tr>
        ))}
      </Grid>
      <ErrorAlert error={revoke.error} />
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
        <FormActions submit="Create key" disabled={create.isPending || name.trim() === ""} />
        <ErrorAlert error={create.error} />
      </form>
    </>
  );
}
