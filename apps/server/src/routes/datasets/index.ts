import type { RouteDefinition } from "../define-route.ts";

/** The Datasets operations, in spec order. */
export const datasetRoutes: RouteDefinition[] = [];
