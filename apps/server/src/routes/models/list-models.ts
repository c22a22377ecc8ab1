import { listModels } from "../../services/models/list-models.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("listModels", async (c) =>
  c.json({ models: await listModels(c.var.ctx, c.req.valid("query")) }, 200),
);
