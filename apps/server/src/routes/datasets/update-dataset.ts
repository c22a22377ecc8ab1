import { updateDataset } from "../../services/datasets/update-dataset.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("updateDataset", async (c) =>
  c.json(await updateDataset(c.var.ctx, c.req.valid("param"), c.req.valid("json")), 200),
);
