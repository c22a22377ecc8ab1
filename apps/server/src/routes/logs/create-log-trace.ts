import { createLogTrace } from "../../services/logs/create-log-trace.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("createLogTrace", async (c) =>
  c.json(await createLogTrace(c.var.ctx, c.req.valid("json")), 200),
);
