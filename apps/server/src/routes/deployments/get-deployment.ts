import { getDeployment } from "../../services/deployments/get-deployment.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("getDeployment", async (c) =>
  c.json(await getDeployment(c.var.ctx, c.req.valid("query")), 200),
);
