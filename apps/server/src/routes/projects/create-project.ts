import { createProject } from "../../services/projects/create-project.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("createProject", async (c) =>
  c.json(await createProject(c.var.ctx, c.req.valid("json")), 201),
);
