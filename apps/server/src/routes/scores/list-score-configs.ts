import { listScoreConfigs } from "../../services/scores/list-score-configs.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("listScoreConfigs", async (c) => {
  const { items, pagination } = await listScoreConfigs(c.var.ctx, c.req.valid("param"), c.req.valid("query"));
  return c.json({ scoreConfigs: items, pagination }, 200);
});
