import { deleteScoreConfig } from "../../services/scores/delete-score-config.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("deleteScoreConfig", async (c) => {
  await deleteScoreConfig(c.var.ctx, c.req.valid("param"));
  return c.body(null, 204);
});
