import { listPrompts } from "../../services/prompts/list-prompts.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("listPrompts", async (c) => {
  const { items, pagination } = await listPrompts(c.var.ctx, c.req.valid("query"));
  return c.json({ prompts: items, pagination }, 200);
});
