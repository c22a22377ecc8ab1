/** What the settings sections share beyond the console's forms (../forms.tsx). */

import type { paths } from "@pharos/contract/types";
import { useQueryClient } from "@tanstack/react-query";

/** Refetches every cached page of the list at `path` after a change to it. */
export function useRefresh(path: keyof paths) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: ["get", path] });
}

/** A secret the API returns only once (a new API key, a webhook signing secret), with how to dismiss it. */
export function SecretNotice({
  message,
  label,
  secret,
  onDone,
}: {
  message: string;
  label: string;
  secret: string;
  onDone: () => void;
}) {
  return (
    <div className="notice secret" role="status">
      <p>{message}</p>
      <output aria-label={label}>{secret}</output>{" "}
      <button type="button" onClick={onDone}>
        Done
      </button>
    </div>
  );
}

/** A row's action button, named after the row so a screen reader tells the rows' buttons apart. */
export function RowButton({ action, name, onClick }: { action: string; name: string; onClick: () => void }) {
  return (
    <button type="button" aria-label={`${action} ${name}`} onClick={onClick}>
      {action}
    </button>
  );
}
