import type { RouteDefinition } from "../define-route.ts";
import createScoreConfig from "./create-score-config.ts";
import createScores from "./create-scores.ts";
import deleteScore from "./delete-score.ts";
import deleteScoreConfig from "./delete-score-config.ts";
import getScoreConfig from "./get-score-config.ts";
import listScoreConfigs from "./list-score-configs.ts";
import searchScores from "./search-scores.ts";
import updateScoreConfig from "./update-score-config.ts";

/** The Scores operations, in spec order. */
export const scoreRoutes = [
  createScores,
  searchScores,
  deleteScore,
  listScoreConfigs,
  createScoreConfig,
  getScoreConfig,
  updateScoreConfig,
  deleteScoreConfig,
] as RouteDefinition[];
