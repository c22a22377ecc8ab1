import { createEvaluation } from "../../services/evaluations/create-evaluation.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("createEvaluation", async (c) =>
  c.json(await createEvaluation(c.var.ctx, c.req.valid("param"), c.req.valid("json")), 202),
);
