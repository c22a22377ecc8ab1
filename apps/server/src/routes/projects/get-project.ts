import { getProject } from "../../services/projects/get-project.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("getProject", async (c) => c.json(await getProject(c.var.ctx, c.req.valid("param")), 200));
