import { getPrompt } from "../../services/prompts/get-prompt.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("getPrompt", async (c) =>
  c.json(await getPrompt(c.var.ctx, c.req.valid("param"), c.req.valid("query")), 200),
);
