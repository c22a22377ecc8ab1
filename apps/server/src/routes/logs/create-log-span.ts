import { createLogSpan } from "../../services/logs/create-log-span.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("createLogSpan", async (c) =>
  c.json(await createLogSpan(c.var.ctx, c.req.valid("json")), 200),
);
