import type { RouteDefinition } from "./define-route.ts";
import { projectRoutes } from "./projects/index.ts";

/** Every implemented operation, registered in spec order (by area). */
export const routeDefinitions: readonly RouteDefinition[] = [...projectRoutes] as readonly RouteDefinition[];
