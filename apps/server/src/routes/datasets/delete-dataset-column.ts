import { deleteDatasetColumn } from "../../services/datasets/delete-dataset-column.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("deleteDatasetColumn", async (c) => {
  const { datasetId, columnId } = c.req.valid("param");
  await deleteDatasetColumn(c.var.ctx, datasetId, columnId);
  return c.body(null, 204);
});
