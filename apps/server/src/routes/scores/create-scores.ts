import { createScores } from "../../services/scores/create-scores.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("createScores", async (c) =>
  c.json(await createScores(c.var.ctx, c.req.valid("param"), c.req.valid("json")), 201),
);
