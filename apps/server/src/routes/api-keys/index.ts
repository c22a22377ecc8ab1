import type { RouteDefinition } from "../define-route.ts";
import createApiKey from "./create-api-key.ts";
import deleteApiKey from "./delete-api-key.ts";
import getCurrentApiKey from "./get-current-api-key.ts";
import listApiKeys from "./list-api-keys.ts";

/** The workspace's API keys, in spec order. */
export const apiKeyRoutes = [listApiKeys, createApiKey, getCurrentApiKey, deleteApiKey] as RouteDefinition[];
