import type { RouteDefinition } from "../define-route.ts";
import listModels from "./list-models.ts";

/** The Models operations, in spec order. */
export const modelRoutes = [listModels] as RouteDefinition[];
