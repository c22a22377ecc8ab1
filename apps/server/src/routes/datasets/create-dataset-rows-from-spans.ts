import { createDatasetRowsFromSpans } from "../../services/datasets/create-dataset-rows-from-spans.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("createDatasetRowsFromSpans", async (c) => {
  const rows = await createDatasetRowsFromSpans(c.var.ctx, c.req.valid("param"), c.req.valid("json"));
  return c.json({ rows }, 201);
});
