import { listProjects } from "../../services/projects/list-projects.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("listProjects", async (c) => {
  const { items, pagination } = await listProjects(c.var.ctx, c.req.valid("query"));
  return c.json({ projects: items, pagination }, 200);
});
