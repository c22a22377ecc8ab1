import { createEvaluator } from "../../services/evaluators/create-evaluator.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("createEvaluator", async (c) =>
  c.json(await createEvaluator(c.var.ctx, c.req.valid("param"), c.req.valid("json")), 201),
);
