import type { RouteDefinition } from "../define-route.ts";

/** The Prompts operations, in spec order. */
export const promptRoutes: RouteDefinition[] = [];
