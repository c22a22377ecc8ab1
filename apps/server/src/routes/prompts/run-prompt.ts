import { runPrompt } from "../../services/prompts/run-prompt.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("runPrompt", async (c) =>
  c.json(await runPrompt(c.var.ctx, c.req.valid("param"), c.req.valid("json")), 200),
);
