import type { RouteDefinition } from "../define-route.ts";

/** The Logs operations, in spec order. */
export const logRoutes: RouteDefinition[] = [];
