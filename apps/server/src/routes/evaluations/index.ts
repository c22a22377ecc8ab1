import type { RouteDefinition } from "../define-route.ts";
import cancelEvaluation from "./cancel-evaluation.ts";
import compareEvaluations from "./compare-evaluations.ts";
import createEvaluation from "./create-evaluation.ts";
import getEvaluation from "./get-evaluation.ts";
import listEvaluationResults from "./list-evaluation-results.ts";
import listEvaluations from "./list-evaluations.ts";

/** The Evaluations operations, in spec order. */
export const evaluationRoutes = [
  listEvaluations,
  createEvaluation,
  getEvaluation,
  cancelEvaluation,
  listEvaluationResults,
  compareEvaluations,
] as RouteDefinition[];
