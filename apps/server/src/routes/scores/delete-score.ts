import { deleteScore } from "../../services/scores/delete-score.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("deleteScore", async (c) => {
  await deleteScore(c.var.ctx, c.req.valid("param"));
  return c.body(null, 204);
});
