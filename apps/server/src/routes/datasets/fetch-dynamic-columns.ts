import { fetchDynamicColumns } from "../../services/datasets/fetch-dynamic-columns.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("fetchDynamicColumns", async (c) =>
  c.json(await fetchDynamicColumns(c.var.ctx, c.req.valid("param"), c.req.valid("json")), 202),
);
