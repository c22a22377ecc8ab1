import type { RouteDefinition } from "../define-route.ts";
import getCurrentApiKey from "./get-current-api-key.ts";

/** The API key operations, in spec order. */
export const apiKeyRoutes = [getCurrentApiKey] as RouteDefinition[];
