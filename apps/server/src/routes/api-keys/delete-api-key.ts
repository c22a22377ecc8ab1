import { deleteApiKey } from "../../services/api-keys/delete-api-key.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("deleteApiKey", async (c) => {
  await deleteApiKey(c.var.ctx, c.req.valid("param"));
  return c.body(null, 204);
});
