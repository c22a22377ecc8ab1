import { updateProject } from "../../services/projects/update-project.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("updateProject", async (c) =>
  c.json(await updateProject(c.var.ctx, c.req.valid("param"), c.req.valid("json")), 200),
);
