import { searchScores } from "../../services/scores/search-scores.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("searchScores", async (c) => {
  const { items, pagination } = await searchScores(c.var.ctx, c.req.valid("param"), c.req.valid("json"));
  return c.json({ scores: items, pagination }, 200);
});
