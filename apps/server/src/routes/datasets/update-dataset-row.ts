import { updateDatasetRow } from "../../services/datasets/update-dataset-row.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("updateDatasetRow", async (c) => {
  const row = await updateDatasetRow(c.var.ctx, c.req.valid("param"), c.req.valid("query"), c.req.valid("json"));
  return c.json(row, 200);
});
