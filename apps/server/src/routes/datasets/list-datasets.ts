import { listDatasets } from "../../services/datasets/list-datasets.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("listDatasets", async (c) => {
  const { items, pagination } = await listDatasets(c.var.ctx, c.req.valid("query"));
  return c.json({ datasets: items, pagination }, 200);
});
