import { getPromptDraft } from "../../services/prompts/get-prompt-draft.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("getPromptDraft", async (c) =>
  c.json(await getPromptDraft(c.var.ctx, c.req.valid("param")), 200),
);
