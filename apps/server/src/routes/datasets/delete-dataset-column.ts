import { deleteDatasetColumn } from "../../services/datasets/delete-dataset-column.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("deleteDatasetColumn", async (c) => {
  await deleteDatasetColumn(c.var.ctx, c.req.valid("param"));
  return c.body(null, 204);
});
