import { deleteProvider } from "../../services/providers/delete-provider.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("deleteProvider", async (c) => {
  await deleteProvider(c.var.ctx, c.req.valid("param"));
  return c.body(null, 204);
});
