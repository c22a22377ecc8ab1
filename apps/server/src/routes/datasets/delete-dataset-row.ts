import { deleteDatasetRow } from "../../services/datasets/delete-dataset-row.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("deleteDatasetRow", async (c) => {
  const { datasetId, rowId } = c.req.valid("param");
  await deleteDatasetRow(c.var.ctx, datasetId, rowId);
  return c.body(null, 204);
});
