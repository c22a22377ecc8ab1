import { createDeployment } from "../../services/deployments/create-deployment.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("createDeployment", async (c) =>
  c.json(await createDeployment(c.var.ctx, c.req.valid("param"), c.req.valid("json")), 201),
);
