import { updateDatasetColumn } from "../../services/datasets/update-dataset-column.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("updateDatasetColumn", async (c) => {
  return c.json(await updateDatasetColumn(c.var.ctx, c.req.valid("param"), c.req.valid("json")), 200);
});
