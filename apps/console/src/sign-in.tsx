import { useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { type FormEvent, useState } from "react";
import { errorMessage, fetchClient } from "./api.ts";
import { forgetKey, storeKey } from "./session.ts";

/** Sign in with an API key: kept only if the server accepts it (GET /api-keys/current). */
export function SignIn() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [key, setKey] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    storeKey(key.trim());
    const reply = await fetchClient.GET("/api-keys/current").catch(() => undefined);
    setBusy(false);
    if (!reply?.data) {
      forgetKey();
      setError(`This API key was refused: ${errorMessage(reply?.error, "the server could not be reached.")}`);
      return;
    }
    queryClient.clear();
    await navigate({ to: "/" });
  }

  return (
    <main className="sign-in">
      <h1>Pharos</h1>
      <form onSubmit={submit} aria-label="Sign in">
        <label htmlFor="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="off"
          placeholder="phk_…"
          value={key}
          onChange={(event) => setKey(event.target.value)}
          required
        />
        <button type="submit" disabled={busy || key.trim() === ""}>
          Sign in
        </button>
        {error && (
          <p role="alert" className="error">
            {error}
          </p>
        )}
      </form>
      <p className="hint">
        Create a key with <code>pnpm pharos keys create</code>; it is kept in this tab only.
      </p>
    </main>
  );
}
