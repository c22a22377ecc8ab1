import { deletePrompt } from "../../services/prompts/delete-prompt.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("deletePrompt", async (c) => {
  await deletePrompt(c.var.ctx, c.req.valid("param"));
  return c.body(null, 204);
});
