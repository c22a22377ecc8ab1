import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { $api, errorMessage, type Schemas } from "../api.ts";
import { ReadRefused, useSettingsAccess } from "./settings.tsx";

type Provider = Schemas["Provider"];
const KINDS: readonly Schemas["ProviderName"][] = ["openai", "anthropic", "openai-compatible"];

/**
 * The workspace's LLM providers. Credentials are write-only: the API never returns them, so the console only
 * says whether some are stored and offers to replace them (a password field that starts empty).
 */
export function Providers() {
  const { isAdmin } = useSettingsAccess();
  const queryClient = useQueryClient();
  const providers = $api.useQuery("get", "/providers", { params: { query: { limit: 200 } } });
  const [editing, setEditing] = useState<Provider | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["get", "/providers"] });

  return (
    <>
      <h2>Providers</h2>
      {providers.error && <ReadRefused what="providers" error={providers.error} />}
      <table className="grid" aria-label="Providers">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Kind</th>
            <th scope="col">Base URL</th>
            <th scope="col">Credentials</th>
            {isAdmin && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {providers.data?.providers.map((provider) => (
            <tr key={provider.id}>
              <td>{provider.displayName}</td>
              <td>{provider.provider}</td>
              <td>{provider.baseUrl ?? "vendor default"}</td>
              <td>{provider.hasCredentials ? "stored (write-only)" : "none"}</td>
              {isAdmin && (
                <td>
                  <button
                    type="button"
                    onClick={() => setEditing(provider)}
                    aria-label={`Edit ${provider.displayName}`}
                  >
                    Edit
                  </button>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {isAdmin && editing && (
        <EditProvider
          provider={editing}
          key={editing.id}
          onDone={() => {
            setEditing(null);
            void refresh();
          }}
        />
      )}
      {isAdmin && <NewProvider onCreated={() => void refresh()} />}
    </>
  );
}

function NewProvider({ onCreated }: { onCreated: () => void }) {
  const create = $api.useMutation("post", "/providers");
  const [kind, setKind] = useState<Schemas["ProviderName"]>("openai");
  const [displayName, setDisplayName] = useState("");
  const [baseUrl, setBaseUrl] = useState("");
  const [apiKey, setApiKey] = useState("");

  function submit(event: FormEvent) {
    event.preventDefault();
    const body = {
      provider: kind,
      displayName: displayName.trim(),
      ...(baseUrl.trim() && { baseUrl: baseUrl.trim() }),
      ...(apiKey && { credentials: { apiKey } }),
    };
    create.mutate(
      { body },
      {
        onSuccess: () => {
          setDisplayName("");
          setBaseUrl("");
          setApiKey("");
          onCreated();
        },
      },
    );
  }

  return (
    <form className="stacked" onSubmit={submit} aria-label="New provider">
      <h3>New provider</h3>
      <label>
        Kind{" "}
        <select value={kind} onChange={(event) => setKind(event.target.value as Schemas["ProviderName"])}>
          {KINDS.map((candidate) => (
            <option key={candidate}>{candidate}</option>
          ))}
        </select>
      </label>
      <label>
        Display name{" "}
        <input value={displayName} onChange={(event) => setDisplayName(event.target.value)} required maxLength={100} />
      </label>
      <label>
        Base URL <input type="url" value={baseUrl} onChange={(event) => setBaseUrl(event.target.value)} />
      </label>
      <label>
        API key{" "}
        <input type="password" autoComplete="off" value={apiKey} onChange={(event) => setApiKey(event.target.value)} />
      </label>
      <button type="submit" disabled={create.isPending || displayName.trim() === ""}>
        Add provider
      </button>
      {create.error && (
        <p role="alert" className="error">
          {errorMessage(create.error)}
        </p>
      )}
    </form>
  );
}

function EditProvider({ provider, onDone }: { provider: Provider; onDone: () => void }) {
  const update = $api.useMutation("patch", "/providers/{providerId}");
  const [displayName, setDisplayName] = useState(provider.displayName);
  const [baseUrl, setBaseUrl] = useState(provider.baseUrl ?? "");
  const [apiKey, setApiKey] = useState("");

  function submit(event: FormEvent) {
    event.preventDefault();
    const body = {
      displayName: displayName.trim(),
      ...(baseUrl.trim() !== (provider.baseUrl ?? "") && { baseUrl: baseUrl.trim() || null }),
      // Left empty, the stored credentials are kept: they are never shown, only replaced.
      ...(apiKey && { credentials: { apiKey } }),
    };
    update.mutate({ params: { path: { providerId: provider.id } }, body }, { onSuccess: onDone });
  }

  return (
    <form className="stacked" onSubmit={submit} aria-label={`Edit provider ${provider.displayName}`}>
      <h3>Edit “{provider.displayName}”</h3>
      <label>
        Display name{" "}
        <input value={displayName} onChange={(event) => setDisplayName(event.target.value)} required maxLength={100} />
      </label>
      <label>
        Base URL <input type="url" value={baseUrl} onChange={(event) => setBaseUrl(event.target.value)} />
      </label>
      <label>
        Replace API key{" "}
        <input
          type="password"
          autoComplete="off"
          value={apiKey}
          placeholder={provider.hasCredentials ? "stored: leave empty to keep" : "none stored"}
          onChange={(event) => setApiKey(event.target.value)}
        />
      </label>
      <div className="actions">
        <button type="submit" disabled={update.isPending}>
          Save provider
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
      {update.error && (
        <p role="alert" className="error">
          {errorMessage(update.error)}
        </p>
      )}
    </form>
  );
}
