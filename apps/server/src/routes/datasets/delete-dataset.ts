import { deleteDataset } from "../../services/datasets/delete-dataset.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("deleteDataset", async (c) => {
  await deleteDataset(c.var.ctx, c.req.valid("param"));
  return c.body(null, 204);
});
