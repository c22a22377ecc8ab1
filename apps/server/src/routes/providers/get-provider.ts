import { getProvider } from "../../services/providers/get-provider.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("getProvider", async (c) =>
  c.json(await getProvider(c.var.ctx, c.req.valid("param"), c.req.valid("query")), 200),
);
