import type { RouteDefinition } from "../define-route.ts";

/** The Evaluators operations, in spec order. */
export const evaluatorRoutes: RouteDefinition[] = [];
