import { createDeploymentEnvironment } from "../../services/deployment-environments/create-deployment-environment.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("createDeploymentEnvironment", async (c) =>
  c.json(await createDeploymentEnvironment(c.var.ctx, c.req.valid("param"), c.req.valid("json")), 201),
);
