import { updatePrompt } from "../../services/prompts/update-prompt.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("updatePrompt", async (c) =>
  c.json(await updatePrompt(c.var.ctx, c.req.valid("param"), c.req.valid("json")), 200),
);
