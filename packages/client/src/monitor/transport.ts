/**
 * How the monitor sends a log write: one POST of JSON text it has serialized itself (to know its size), with the
 * key, a fresh request id and a time limit. No retries here: the monitor keeps a failed entry in its buffer and
 * tries it again later, without holding up the application or the other entries.
 */
import { type ClientOptions, resolveBaseUrl } from "../client.ts";
import type { FetchLike } from "../retry.ts";

export type LogWritePath = "/logs/trace" | "/logs/span";
export type Post = (path: LogWritePath, body: string) => Promise<Response>;

export function createTransport(connection: ClientOptions, timeoutMs: number): Post {
  const base = resolveBaseUrl(connection.baseUrl);
  const send: FetchLike = connection.fetch ?? ((request) => globalThis.fetch(request));
  return (path, body) =>
    send(
      new Request(`${base}${path}`, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          // The server makes one up when there is none; randomUUID exists only in secure contexts in browsers.
          ...(typeof crypto.randomUUID === "function" && { "X-Request-Id": crypto.randomUUID() }),
          ...(connection.apiKey !== null && { Authorization: `Bearer ${connection.apiKey}` }),
        },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      }),
    );
}
