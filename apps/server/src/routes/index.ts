import { apiKeyRoutes } from "./api-keys/index.ts";
import { datasetRoutes } from "./datasets/index.ts";
import type { RouteDefinition } from "./define-route.ts";
import { deploymentRoutes } from "./deployments/index.ts";
import { evaluationRoutes } from "./evaluations/index.ts";
import { evaluatorRoutes } from "./evaluators/index.ts";
import { logRoutes } from "./logs/index.ts";
import { modelRoutes } from "./models/index.ts";
import { projectRoutes } from "./projects/index.ts";
import { promptRoutes } from "./prompts/index.ts";
import { providerRoutes } from "./providers/index.ts";
import { scoreRoutes } from "./scores/index.ts";
import { sessionRoutes } from "./sessions/index.ts";
import { webhookRoutes } from "./webhooks/index.ts";

/** Every implemented operation, registered in spec order (area by area, as the spec's tags run). */
export const routeDefinitions: readonly RouteDefinition[] = [
  ...apiKeyRoutes,
  ...projectRoutes,
  ...sessionRoutes,
  ...webhookRoutes,
  ...promptRoutes,
  ...deploymentRoutes,
  ...evaluatorRoutes,
  ...evaluationRoutes,
  ...datasetRoutes,
  ...logRoutes,
  ...scoreRoutes,
  ...providerRoutes,
  ...modelRoutes,
] as readonly RouteDefinition[];
