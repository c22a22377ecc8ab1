import { createDatasetColumns } from "../../services/datasets/create-dataset-columns.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("createDatasetColumns", async (c) => {
  const columns = await createDatasetColumns(c.var.ctx, c.req.valid("param"), c.req.valid("json"));
  return c.json({ columns }, 201);
});
