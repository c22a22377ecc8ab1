import type { RouteDefinition } from "../define-route.ts";

/** The Deployments operations, in spec order. */
export const deploymentRoutes: RouteDefinition[] = [];
