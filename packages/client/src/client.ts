import type { paths } from "@pharos/contract/types";
import createFetchClient, { type Client, type Middleware } from "openapi-fetch";
import { type FetchLike, type RetryOptions, withRetries } from "./retry.ts";

/** The typed client: openapi-fetch over the spec's `paths` (`client.GET("/projects/{projectId}", …)`). */
export type PharosClient = Client<paths, "application/json">;

export interface ClientOptions {
  /**
   * The API's base URL, ending in `/v2` like the spec's `servers` entry and every Pharos document:
   * `http://127.0.0.1:8080/v2`. A bare origin (`http://127.0.0.1:8080` or with a trailing `/`) is taken to
   * mean that server's `/v2`. Any other path is used as given (a proxy that mounts the API elsewhere).
   */
  baseUrl: string;
  /**
   * The workspace API key, sent as `Authorization: Bearer <key>`. A request that sets its own `Authorization`
   * header keeps it. `null` sends no key (only useful to probe the 401 answer).
   */
  apiKey: string | null;
  /** The fetch to send requests with (default `globalThis.fetch`); e.g. an in-process app's `app.fetch`. */
  fetch?: FetchLike;
  /** Retry settings (see RetryOptions for defaults), or `false` to send every request once. */
  retry?: Partial<RetryOptions> | false;
}

export function resolveBaseUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  if (url.pathname === "/" || url.pathname === "") url.pathname = "/v2";
  return url.toString().replace(/\/+$/, "");
}

/** Sets `Authorization: Bearer <key>` unless the request carries its own. */
export function authMiddleware(apiKey: string | null): Middleware {
  return {
    onRequest({ request }) {
      if (apiKey !== null && !request.headers.has("Authorization")) {
        request.headers.set("Authorization", `Bearer ${apiKey}`);
      }
      return request;
    },
  };
}

/**
 * Gives each request a fresh UUID in `X-Request-Id` unless the caller set one. Retries of a request reuse its
 * id: they are the same logical request, and the server's log lines of all attempts then correlate.
 */
export const requestIdMiddleware: Middleware = {
  onRequest({ request }) {
    if (!request.headers.has("X-Request-Id")) request.headers.set("X-Request-Id", crypto.randomUUID());
    return request;
  },
};

export function createClient(options: ClientOptions): PharosClient {
  const baseFetch: FetchLike = options.fetch ?? ((request) => globalThis.fetch(request));
  const fetch = options.retry === false ? baseFetch : withRetries(baseFetch, options.retry);
  const client = createFetchClient<paths, "application/json">({ baseUrl: resolveBaseUrl(options.baseUrl), fetch });
  client.use(authMiddleware(options.apiKey), requestIdMiddleware);
  return client;
}
