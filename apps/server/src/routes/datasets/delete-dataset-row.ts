import { deleteDatasetRow } from "../../services/datasets/delete-dataset-row.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("deleteDatasetRow", async (c) => {
  await deleteDatasetRow(c.var.ctx, c.req.valid("param"));
  return c.body(null, 204);
});
