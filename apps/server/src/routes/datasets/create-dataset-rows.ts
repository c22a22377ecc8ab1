import { createDatasetRows } from "../../services/datasets/create-dataset-rows.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("createDatasetRows", async (c) => {
  const rows = await createDatasetRows(c.var.ctx, c.req.valid("param"), c.req.valid("query"), c.req.valid("json"));
  return c.json({ rows }, 201);
});
