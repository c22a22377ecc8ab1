import { listEvaluations } from "../../services/evaluations/list-evaluations.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("listEvaluations", async (c) => {
  const { items, pagination } = await listEvaluations(c.var.ctx, c.req.valid("param"), c.req.valid("query"));
  return c.json({ evaluations: items, pagination }, 200);
});
