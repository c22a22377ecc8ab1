import { createProvider } from "../../services/providers/create-provider.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("createProvider", async (c) =>
  c.json(await createProvider(c.var.ctx, c.req.valid("json")), 201),
);
