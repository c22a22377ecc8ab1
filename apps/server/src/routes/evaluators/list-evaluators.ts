import { listEvaluators } from "../../services/evaluators/list-evaluators.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("listEvaluators", async (c) => {
  const { items, pagination } = await listEvaluators(c.var.ctx, c.req.valid("param"), c.req.valid("query"));
  return c.json({ evaluators: items, pagination }, 200);
});
