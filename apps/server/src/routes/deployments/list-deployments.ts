import { listDeployments } from "../../services/deployments/list-deployments.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("listDeployments", async (c) => {
  const { items, pagination } = await listDeployments(c.var.ctx, c.req.valid("param"), c.req.valid("query"));
  return c.json({ deployments: items, pagination }, 200);
});
