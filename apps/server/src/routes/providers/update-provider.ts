import { updateProvider } from "../../services/providers/update-provider.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("updateProvider", async (c) =>
  c.json(await updateProvider(c.var.ctx, c.req.valid("param"), c.req.valid("json")), 200),
);
