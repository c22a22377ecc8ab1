import { updateDatasetColumn } from "../../services/datasets/update-dataset-column.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("updateDatasetColumn", async (c) => {
  const { datasetId, columnId } = c.req.valid("param");
  return c.json(await updateDatasetColumn(c.var.ctx, datasetId, columnId, c.req.valid("json")), 200);
});
