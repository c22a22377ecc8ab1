import { type FormEvent, useState } from "react";
import { $api, type Schemas } from "../api.ts";
import { ErrorAlert, FormActions, Grid } from "../forms.tsx";
import { RowButton, useRefresh } from "./kit.tsx";
import { ReadRefused, useSettingsAccess } from "./settings.tsx";

type Provider = Schemas["Provider"];
const KINDS: readonly Schemas["ProviderName"][] = ["openai", "anthropic", "openai-compatible"];

/**
 * The workspace's LLM providers. Credentials are write-only: the API never returns them, so the console only
 * says whether some are stored and offers to replace them (a password field that starts empty).
 */
export function Providers() {
  const { isAdmin } = useSettingsAccess();
  const providers = $api.useQuery("get", "/providers", { params: { query: { limit: 200 } } });
  const remove = $api.useMutation("delete", "/providers/{providerId}");
  const [editing, setEditing] = useState<Provider | null>(null);
  const refresh = useRefresh("/providers");

  return (
    <>
      <h2>Providers</h2>
      {providers.error && <ReadRefused what="providers" error={providers.error} />}
      <Grid label="Providers" columns={["Name", "Kind", "Base URL", "Credentials", isAdmin && "Actions"]}>
        {providers.data?.providers.map((provider) => (
          <tr key={provider.id}>
            <td>{provider.displayName}</td>
            <td>{provider.provider}</td>
            <td>{provider.baseUrl ?? "vendor default"}</td>
            <td>{provider.hasCredentials ? "stored (write-only)" : "none"}</td>
            {isAdmin && (
              <td>
                <RowButton action="Edit" name={provider.displayName} onClick={() => setEditing(provider)} />{" "}
                <RowButton
                  action="Delete"
                  name={provider.displayName}
                  onClick={() =>
                    // Prompts and evaluators that name the record keep it, and their calls fail from then on.
                    window.confirm(
                      `Delete the provider “${provider.displayName}”? Prompts and evaluators that use it will fail.`,
                    ) &&
                    remove.mutate(
                      { params: { path: { providerId: provider.id } } },
                      {
                        onSuccess: () => {
                          if (editing?.id === provider.id) setEditing(null);
                          void refresh();
                        },
                      },
                    )
                  }
                />
              </td>
            )}
          </tr>
        ))}
      </Grid>
      <ErrorAlert error={remove.error} />
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

/** The fields a new provider and an edited one share: its name, base URL and API key (write-only). */
function ProviderFields({
  displayName,
  baseUrl,
  apiKey,
  onChange,
  keyLabel,
  keyPlaceholder,
}: {
  displayName: string;
  baseUrl: string;
  apiKey: string;
  onChange: (change: { displayName?: string; baseUrl?: string; apiKey?: string }) => void;
  keyLabel: string;
  keyPlaceholder?: string;
}) {
  return (
    <>
      <label>
        Display name{" "}
        <input
          value={displayName}
          onChange={(event) => onChange({ displayName: event.target.value })}
          required
          maxLength={100}
        />
      </label>
      <label>
        Base URL <input type="url" value={baseUrl} onChange={(event) => onChange({ baseUrl: event.target.value })} />
      </label>
      <label>
        {keyLabel}{" "}
        <input
          type="password"
          autoComplete="off"
          value={apiKey}
          placeholder={keyPlaceholder}
          onChange={(event) => onChange({ apiKey: event.target.value })}
        />
      </label>
    </>
  );
}

function NewProvider({ onCreated }: { onCreated: () => void }) {
  const create = $api.useMutation("post", "/providers");
  const [kind, setKind] = useState<Schemas["ProviderName"]>("openai");
  const empty = { displayName: "", baseUrl: "", apiKey: "" };
  const [fields, setFields] = useState(empty);

  function submit(event: FormEvent) {
    event.preventDefault();
    const body = {
      provider: kind,
      displayName: fields.displayName.trim(),
      ...(fields.baseUrl.trim() && { baseUrl: fields.baseUrl.trim() }),
      ...(fields.apiKey && { credentials: { apiKey: fields.apiKey } }),
    };
    create.mutate(
      { body },
      {
        onSuccess: () => {
          setFields(empty);
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
      <ProviderFields {...fields} keyLabel="API key" onChange={(change) => setFields({ ...fields, ...change })} />
      <FormActions submit="Add provider" disabled={create.isPending || fields.displayName.trim() === ""} />
      <ErrorAlert error={create.error} />
    </form>
  );
}

function EditProvider({ provider, onDone }: { provider: Provider; onDone: () => void }) {
  const update = $api.useMutation("patch", "/providers/{providerId}");
  const [fields, setFields] = useState({
    displayName: provider.displayName,
    baseUrl: provider.baseUrl ?? "",
    apiKey: "",
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    const body = {
      displayName: fields.displayName.trim(),
      ...(fields.baseUrl.trim() !== (provider.baseUrl ?? "") && { baseUrl: fields.baseUrl.trim() || null }),
      // Left empty, the stored credentials are kept: they are never shown, only replaced.
      ...(fields.apiKey && { credentials: { apiKey: fields.apiKey } }),
    };
    update.mutate({ params: { path: { providerId: provider.id } }, body }, { onSuccess: onDone });
  }

  return (
    <form className="stacked" onSubmit={submit} aria-label={`Edit provider ${provider.displayName}`}>
      <h3>Edit “{provider.displayName}”</h3>
      <ProviderFields
        {...fields}
        keyLabel="Replace API key"
        keyPlaceholder={provider.hasCredentials ? "stored: leave empty to keep" : "none stored"}
        onChange={(change) => setFields({ ...fields, ...change })}
      />
      <FormActions submit="Save provider" disabled={update.isPending} onCancel={onDone} />
      <ErrorAlert error={update.error} />
    </form>
  );
}
