import { listDeploymentEnvironments } from "../../services/deployment-environments/list-deployment-environments.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("listDeploymentEnvironments", async (c) => {
  const { items, pagination } = await listDeploymentEnvironments(c.var.ctx, c.req.valid("param"), c.req.valid("query"));
  return c.json({ deploymentEnvironments: items, pagination }, 200);
});
