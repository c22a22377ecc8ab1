import { createApiKey } from "../../services/api-keys/create-api-key.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("createApiKey", async (c) =>
  c.json(await createApiKey(c.var.ctx, c.req.valid("json")), 201),
);
