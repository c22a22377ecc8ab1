/** An endpoint's delivery log, loaded with the settings screen only when a person opens it. */
import { $api, type Schemas } from "../api.ts";
import { formatTime } from "../format.ts";
import { ErrorAlert, Grid } from "../forms.tsx";
import { useRefresh } from "./kit.tsx";

type Delivery = Schemas["WebhookDelivery"];

/** The last attempt in words: the endpoint's status code, or what went wrong before it answered. */
function lastAttempt(delivery: Delivery): string {
  const attempt = delivery.attempts.at(-1);
  if (!attempt) return "not attempted yet";
  const outcome = attempt.statusCode === null ? (attempt.error ?? "no answer") : `HTTP ${attempt.statusCode}`;
  return `${outcome} (${attempt.durationMs} ms)`;
}

export default function WebhookDeliveries({ webhook, onClose }: { webhook: Schemas["Webhook"]; onClose: () => void }) {
  const path = { projectId: webhook.projectId, webhookId: webhook.id };
  const deliveries = $api.useQuery("get", "/projects/{projectId}/webhooks/{webhookId}/deliveries", {
    params: { path, query: { limit: 50 } },
  });
  const refresh = useRefresh("/projects/{projectId}/webhooks/{webhookId}/deliveries");
  const sendTest = $api.useMutation("post", "/projects/{projectId}/webhooks/{webhookId}/test", { onSuccess: refresh });

  return (
    <section aria-labelledby="deliveries-title">
      <h3 id="deliveries-title">Deliveries of “{webhook.name}”</h3>
      <div className="actions">
        <button type="button" disabled={sendTest.isPending} onClick={() => sendTest.mutate({ params: { path } })}>
          {sendTest.isPending ? "Sending test event…" : "Send test event"}
        </button>
        <button type="button" onClick={() => void refresh()}>
          Refresh
        </button>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      <ErrorAlert error={sendTest.error ?? deliveries.error} />
      <Grid label="Deliveries" columns={["Event", "Status", "Attempts", "Last attempt", "Created", "Next attempt"]}>
        {deliveries.data?.deliveries.map((delivery) => (
          <tr key={delivery.id}>
            <td>{delivery.type}</td>
            <td>{delivery.status}</td>
            <td>{delivery.attempts.length}</td>
            <td>{lastAttempt(delivery)}</td>
            <td>{formatTime(delivery.createdAt)}</td>
            <td>{delivery.nextAttemptAt === null ? "—" : formatTime(delivery.nextAttemptAt)}</td>
          </tr>
        ))}
      </Grid>
      {deliveries.data?.deliveries.length === 0 && <p>No deliveries yet: events and test events appear here.</p>}
      {deliveries.data?.pagination.hasMore && <p className="hint">The 50 most recent deliveries are shown.</p>}
    </section>
  );
}
