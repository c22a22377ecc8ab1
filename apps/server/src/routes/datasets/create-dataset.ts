import { createDataset } from "../../services/datasets/create-dataset.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("createDataset", async (c) =>
  c.json(await createDataset(c.var.ctx, c.req.valid("json")), 201),
);
