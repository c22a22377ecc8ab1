import { updateDatasetRow } from "../../services/datasets/update-dataset-row.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("updateDatasetRow", async (c) => {
  const { datasetId, rowId } = c.req.valid("param");
  const row = await updateDatasetRow(c.var.ctx, datasetId, rowId, c.req.valid("json"), c.req.valid("query").valuesBy);
  return c.json(row, 200);
});
