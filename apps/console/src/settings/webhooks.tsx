import { type FormEvent, lazy, Suspense, useState } from "react";
import { $api, type Schemas } from "../api.ts";
import { formatTime } from "../format.ts";
import { ErrorAlert, FormActions, Grid } from "../forms.tsx";
import { formatHeaders, parseHeaders } from "../headers.ts";
import { useWorkspace } from "../layout.tsx";
import { RowButton, SecretNotice, useRefresh } from "./kit.tsx";
import { ReadRefused, useSettingsAccess } from "./settings.tsx";

// The delivery log is opened now and then: its code is fetched when it is, not with the console.
const WebhookDeliveries = lazy(() => import("./webhook-deliveries.tsx"));

type Webhook = Schemas["Webhook"];
type EventType = Schemas["WebhookEventType"];
const EVENTS: readonly EventType[] = ["create-deployment", "evaluation-run-finished"];

/** What the secret notice says: a new endpoint's secret, or a rotated one and how long the old one still signs. */
function secretMessage(webhook: Schemas["WebhookWithSecret"], rotated: boolean) {
  if (!rotated)
    return `The endpoint “${webhook.name}” was created. Copy its signing secret now: it is not shown again.`;
  const until = webhook.previousSecretExpiresAt === null ? "" : ` until ${formatTime(webhook.previousSecretExpiresAt)}`;
  return `The endpoint “${webhook.name}” has a new signing secret. Copy it now: it is not shown again. The previous secret keeps signing beside it${until}.`;
}

/**
 * The project's webhook endpoints. The API lets only full keys read them (they hold a signing secret and
 * headers), so a read-only key sees why the list is missing. A secret is shown once: when an endpoint is
 * created and when its secret is rotated.
 */
export function Webhooks() {
  const { projectId } = useWorkspace();
  const { canEdit } = useSettingsAccess();
  const path = { projectId: projectId as string };
  const webhooks = $api.useQuery("get", "/projects/{projectId}/webhooks", { params: { path, query: { limit: 200 } } });
  const remove = $api.useMutation("delete", "/projects/{projectId}/webhooks/{webhookId}");
  const rotate = $api.useMutation("post", "/projects/{projectId}/webhooks/{webhookId}/rotate-secret");
  const [editing, setEditing] = useState<Webhook | null>(null);
  const [viewing, setViewing] = useState<Webhook | null>(null);
  const [secret, setSecret] = useState<{ webhook: Schemas["WebhookWithSecret"]; rotated: boolean } | null>(null);
  const refresh = useRefresh("/projects/{projectId}/webhooks");
  const rowPath = (webhook: Webhook) => ({ params: { path: { ...path, webhookId: webhook.id } } });

  return (
    <>
      <h2>Webhooks</h2>
      {webhooks.error && <ReadRefused what="webhooks" error={webhooks.error} />}
      {secret && (
        <SecretNotice
          message={secretMessage(secret.webhook, secret.rotated)}
          label="Signing secret"
          secret={secret.webhook.secret}
          onDone={() => setSecret(null)}
        />
      )}
      {webhooks.data && (
        <Grid label="Webhooks" columns={["Name", "URL", "Events", "Headers", canEdit && "Actions"]}>
          {webhooks.data.webhooks.map((webhook) => (
            <tr key={webhook.id}>
              <td>{webhook.name}</td>
              <td>{webhook.url}</td>
              <td>{webhook.events.join(", ")}</td>
              <td>{Object.keys(webhook.headers).join(", ") || "none"}</td>
              {canEdit && (
                <td>
                  <RowButton action="Edit" name={webhook.name} onClick={() => setEditing(webhook)} />{" "}
                  <RowButton action="Deliveries" name={webhook.name} onClick={() => setViewing(webhook)} />{" "}
                  <RowButton
                    action="Rotate secret"
                    name={webhook.name}
                    onClick={() =>
                      rotate.mutate(rowPath(webhook), {
                        onSuccess: (rotated) => {
                          setSecret({ webhook: rotated, rotated: true });
                          void refresh();
                        },
                      })
                    }
                  />{" "}
                  <RowButton
                    action="Delete"
                    name={webhook.name}
                    onClick={() =>
                      remove.mutate(rowPath(webhook), {
                        onSuccess: () => {
                          if (viewing?.id === webhook.id) setViewing(null);
                          void refresh();
                        },
                      })
                    }
                  />
                </td>
              )}
            </tr>
          ))}
        </Grid>
      )}
      <ErrorAlert error={remove.error ?? rotate.error} />
      {canEdit && viewing && (
        <Suspense fallback={<p>Loading deliveries…</p>}>
          <WebhookDeliveries key={viewing.id} webhook={viewing} onClose={() => setViewing(null)} />
        </Suspense>
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
            if (created) setSecret({ webhook: created, rotated: false });
            void refresh();
          }}
        />
      )}
    </>
  );
}

/** Creates an endpoint, or edits one (`webhook` given): name, URL, the events it receives and custom headers. */
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
  const [headerText, setHeaderText] = useState(formatHeaders(webhook?.headers ?? {}));
  const headers = parseHeaders(headerText);
  const title = webhook ? `Edit webhook ${webhook.name}` : "New webhook";
  const headersId = webhook ? `headers-error-${webhook.id}` : "headers-error-new";

  function submit(event: FormEvent) {
    event.preventDefault();
    if ("error" in headers) return;
    const body = { name: name.trim(), url: url.trim(), events, headers: headers.headers };
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
          setHeaderText("");
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
      <label>
        Headers (one “Name: value” a line){" "}
        <textarea
          rows={3}
          value={headerText}
          onChange={(event) => setHeaderText(event.target.value)}
          aria-describedby={headersId}
          spellCheck={false}
        />
      </label>
      {"error" in headers && (
        <span id={headersId} role="alert" className="error field-error">
          {headers.error}
        </span>
      )}
      <FormActions
        submit={webhook ? "Save webhook" : "Add webhook"}
        disabled={create.isPending || update.isPending || events.length === 0 || "error" in headers}
        onCancel={onCancel}
      />
      <ErrorAlert error={create.error ?? update.error} />
    </form>
  );
}
