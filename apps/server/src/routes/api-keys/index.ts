import createApiKey from "./create-api-key.ts";
import deleteApiKey from "./delete-api-key.ts";
import listApiKeys from "./list-api-keys.ts";

/** The workspace's API keys, in spec order. */
export const apiKeyRoutes = [listApiKeys, createApiKey, deleteApiKey];
