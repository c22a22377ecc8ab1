import { getDataset } from "../../services/datasets/get-dataset.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("getDataset", async (c) => c.json(await getDataset(c.var.ctx, c.req.valid("param")), 200));
