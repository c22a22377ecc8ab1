/**
 * The console's only way to the server: openapi-fetch and openapi-react-query over the contract's generated
 * `paths`, so every request and response is typed from the spec. The key is read at each request.
 */
import type { components, paths } from "@pharos/contract/types";
import createFetchClient, { type Middleware } from "openapi-fetch";
import createClient from "openapi-react-query";
import { storedKey } from "./session.ts";

export type Schemas = components["schemas"];

const bearer: Middleware = {
  onRequest({ request }) {
    const key = storedKey();
    if (key) request.headers.set("Authorization", `Bearer ${key}`);
    return request;
  },
};

export const fetchClient = createFetchClient<paths>({ baseUrl: `${location.origin}/v2` });
fetchClient.use(bearer);

export const $api = createClient(fetchClient);

/** The message of the API's `{error: {code, message}}` body, or a fallback. */
export function errorMessage(error: unknown, fallback = "The request failed."): string {
  const body = error as { error?: { message?: string } } | undefined;
  return body?.error?.message ?? fallback;
}
