import { getScoreConfig } from "../../services/scores/get-score-config.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("getScoreConfig", async (c) =>
  c.json(await getScoreConfig(c.var.ctx, c.req.valid("param")), 200),
);
