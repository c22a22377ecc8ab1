import { type FormEvent, useState } from "react";
import { $api, type Schemas } from "../api.ts";
import { ErrorAlert, FormActions } from "../forms.tsx";
import { formatHeaders, parseHeaders } from "../headers.ts";

type ApiColumn = Schemas["ApiDatasetColumn"];

/**
 * The request headers of an api column: plain ones shown and edited as `Name: value` lines, secret ones
 * write-only. The API replaces the settings as a whole, so stored secret headers are kept only when given again.
 */
export function ApiColumnHeaders({
  datasetId,
  column,
  onDone,
}: {
  datasetId: string;
  column: ApiColumn;
  onDone: (saved: boolean) => void;
}) {
  const update = $api.useMutation("patch", "/datasets/{datasetId}/columns/{columnId}");
  const [plainText, setPlainText] = useState(formatHeaders(column.settings.headers));
  const [secretText, setSecretText] = useState("");
  const plain = parseHeaders(plainText);
  const secret = parseHeaders(secretText);
  const stored = column.settings.secretHeaderNames ?? [];
  const problem = "error" in plain ? plain.error : "error" in secret ? `Secret headers: ${secret.error}` : null;
  const errorId = `headers-error-${column.id}`;

  function submit(event: FormEvent) {
    event.preventDefault();
    if ("error" in plain || "error" in secret) return;
    const { method, url, body } = column.settings;
    const settings = {
      method,
      url,
      headers: plain.headers,
      ...(body !== null && { body }),
      ...(Object.keys(secret.headers).length > 0 && { secretHeaders: secret.headers }),
    };
    update.mutate(
      { params: { path: { datasetId, columnId: column.id } }, body: { settings } },
      { onSuccess: () => onDone(true) },
    );
  }

  return (
    <form className="stacked" onSubmit={submit} aria-label={`Headers of column ${column.name}`}>
      <label>
        Headers (one “Name: value” a line; values may hold {"{{column}}"} placeholders){" "}
        <textarea
          rows={3}
          spellCheck={false}
          value={plainText}
          onChange={(event) => setPlainText(event.target.value)}
          aria-describedby={errorId}
        />
      </label>
      <label>
        Secret headers (write-only, never shown again){" "}
        <textarea
          rows={2}
          spellCheck={false}
          value={secretText}
          placeholder={stored.length > 0 ? `stored: ${stored.join(", ")}` : "none stored"}
          onChange={(event) => setSecretText(event.target.value)}
          aria-describedby={errorId}
        />
      </label>
      {stored.length > 0 && (
        <p className="hint">
          Saving replaces the stored secret headers ({stored.join(", ")}): give them again to keep them.
        </p>
      )}
      {problem && (
        <span id={errorId} role="alert" className="error field-error">
          {problem}
        </span>
      )}
      <FormActions
        submit="Save headers"
        disabled={update.isPending || problem !== null}
        onCancel={() => onDone(false)}
      />
      <ErrorAlert error={update.error} />
    </form>
  );
}
