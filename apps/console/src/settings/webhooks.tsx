import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { $api, errorMessage, type Schemas } from "../api.ts";
import { useWorkspace } from "../layout.tsx";
import { ReadRefused, useSettingsAccess } from "./settings.tsx";

type Webhook = Schemas["Webhook"];
type EventType = Schemas["WebhookEventType"];
const EVENTS: readonly EventType[] = ["create-deployment", "evaluation-run-finished"];

/**
 * The project's webhook endpoints. The API lets only full keys read them (they hold a signing secret and
 * headers), so a read-only key sees why the list is missing. The secret is shown once, when an endpoint is created.
 */
export function Webhooks() {
  const { projectId } = useWorkspace();
  const { canEdit } = useSettingsAccess();
  const queryClient = useQueryClient();
  const path = { projectId: projectId as string };
  const webhooks = $api.useQuery("get", "/projects/{projectId}/webhooks", { params: { path, query: { limit: 200 } } });
  const remove = $api.useMutation("delete", "/projects/{projectId}/webhooks/{webhookId}");
  const [editing, setEditing] = useState<Webhook | null>(null);
  const [secret, setSecret] = useState<Schemas["WebhookWithSecret"] | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["get", "/projects/{projectId}/webhooks"] });

  return (
    <>
      <h2>Webhooks</h2>
      {webhooks.error && <ReadRefused what="webhooks" error={webhooks.error} />}
      {secret && (
        <div className="notice secret" role="status">
          <p>The endpoint “{secret.name}” was created. Copy its signing secret now: it is not shown again.</p>
          <output aria-label="Signing secret">{secret.secret}</output>{" "}
          <button type="button" onClick={() => setSecret(null)}>
            Done
          </button>
        </div>
      )}
      {webhooks.data && (
        <table className="grid" aria-label="Webhooks">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">URL</th>
              <th scope="col">Events</th>
              {canEdit && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {webhooks.data.webhooks.map((webhook) => (
              <tr key={webhook.id}>
                <td>{webhook.name}</td>
                <td>{webhook.url}</td>
                <td>{webhook.events.join(", ")}</td>
                {canEdit && (
                  <td>
                    <button type="button" aria-label={`Edit ${webhook.name}`} onClick={() => setEditing(webhook)}>
                      Edit
                    </button>{" "}
                    <button
                      type="button"
                      aria-label={`Delete ${webhook.name}`}
                      onClick={() =>
                        remove.mutate({ params: { path: { ...path, webhookId: webhook.id } } }, { onSuccess: refresh })
                      }
                    >
                      Delete
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {remove.error && (
        <p role="alert" className="error">
          {errorMessage(remove.error)}
        </p>
      )}
      {canEdit && editing && (
        <WebhookForm
          key={editing.id}
          webhook={editing}
          onSaved={() => {
            setEditing(null);
            void refresh();
          }}
          onCancel={() => setEditing(null)}
        />
      )}
      {canEdit && (
        <WebhookForm
          onSaved={(created) => {
            if (created) setSecret(created);
            void refresh();
          }}
        />
      )}
    </>
  );
}

/** Creates an endpoint, or edits one (`webhook` given): name, URL and the events it receives. */
function WebhookForm({
  webhook,
  onSaved,
  onCancel,
}: {
  webhook?: Webhook;
  onSaved: (created?: Schemas["WebhookWithSecret"]) => void;
  onCancel?: () => void;
}) {
  const { projectId } = useWorkspace();
  const path = { projectId: projectId as string };
  const create = $api.useMutation("post", "/projects/{projectId}/webhooks");
  const update = $api.useMutation("patch", "/projects/{projectId}/webhooks/{webhookId}");
  const [name, setName] = useState(webhook?.name ?? "");
  const [url, setUrl] = useState(webhook?.url ?? "");
  const [events, setEvents] = useState<EventType[]>(webhook?.events ?? [...EVENTS]);
  const error = create.error ?? update.error;
  const title = webhook ? `Edit webhook ${webhook.name}` : "New webhook";

  function submit(event: FormEvent) {
    event.preventDefault();
    const body = { name: name.trim(), url: url.trim(), events };
    if (webhook) {
      update.mutate({ params: { path: { ...path, webhookId: webhook.id } }, body }, { onSuccess: () => onSaved() });
      return;
    }
    create.mutate(
      { params: { path }, body },
      {
        onSuccess: (created) => {
          setName("");
          setUrl("");
          onSaved(created);
        },
      },
    );
  }

  return (
    <form className="stacked" onSubmit={submit} aria-label={title}>
      <h3>{title}</h3>
      <label>
        Webhook name <input value={name} onChange={(event) => setName(event.target.value)} required maxLength={100} />
      </label>
      <label>
        Endpoint URL <input type="url" value={url} onChange={(event) => setUrl(event.target.value)} required />
      </label>
      <fieldset>
        <legend>Events</legend>
        {EVENTS.map((type) => (
          <label key={type} className="check">
            <input
              type="checkbox"
              checked={events.includes(type)}
              onChange={(event) =>
                setEvents(event.target.checked ? [...events, type] : events.filter((candidate) => candidate !== type))
              }
            />{" "}
            {type}
          </label>
        ))}
      </fieldset>
      <div className="actions">
        <button type="submit" disabled={create.isPending || update.isPending || events.length === 0}>
          {webhook ? "Save webhook" : "Add webhook"}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
      {error && (
        <p role="alert" className="error">
          {errorMessage(error)}
        </p>
      )}
    </form>
  );
}
