import { createScoreConfig } from "../../services/scores/create-score-config.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("createScoreConfig", async (c) =>
  c.json(await createScoreConfig(c.var.ctx, c.req.valid("param"), c.req.valid("json")), 201),
);
