import { listDatasetRows } from "../../services/datasets/list-dataset-rows.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("listDatasetRows", async (c) => {
  const { items, pagination } = await listDatasetRows(c.var.ctx, c.req.valid("param"), c.req.valid("query"));
  return c.json({ rows: items, pagination }, 200);
});
