import { compareEvaluations } from "../../services/evaluations/compare-evaluations.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("compareEvaluations", async (c) => {
  return c.json(await compareEvaluations(c.var.ctx, c.req.valid("param"), c.req.valid("query")), 200);
});
