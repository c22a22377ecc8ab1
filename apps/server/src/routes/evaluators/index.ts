import type { RouteDefinition } from "../define-route.ts";
import createEvaluator from "./create-evaluator.ts";
import deleteEvaluator from "./delete-evaluator.ts";
import getEvaluator from "./get-evaluator.ts";
import getEvaluatorOnlineStats from "./get-evaluator-online-stats.ts";
import listEvaluators from "./list-evaluators.ts";
import updateEvaluator from "./update-evaluator.ts";

/** The Evaluators operations, in spec order. */
export const evaluatorRoutes = [
  listEvaluators,
  createEvaluator,
  getEvaluator,
  updateEvaluator,
  deleteEvaluator,
  getEvaluatorOnlineStats,
] as RouteDefinition[];
