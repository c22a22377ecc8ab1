import { updateScoreConfig } from "../../services/scores/update-score-config.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("updateScoreConfig", async (c) =>
  c.json(await updateScoreConfig(c.var.ctx, c.req.valid("param"), c.req.valid("json")), 200),
);
