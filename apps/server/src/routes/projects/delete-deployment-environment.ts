import { deleteDeploymentEnvironment } from "../../services/deployment-environments/delete-deployment-environment.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("deleteDeploymentEnvironment", async (c) => {
  await deleteDeploymentEnvironment(c.var.ctx, c.req.valid("param"));
  return c.body(null, 204);
});
