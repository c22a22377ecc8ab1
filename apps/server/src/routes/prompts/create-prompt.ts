import { createPrompt } from "../../services/prompts/create-prompt.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("createPrompt", async (c) =>
  c.json(await createPrompt(c.var.ctx, c.req.valid("json")), 201),
);
