import { updateLogTrace } from "../../services/logs/update-log-trace.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("updateLogTrace", async (c) =>
  c.json(await updateLogTrace(c.var.ctx, c.req.valid("json")), 200),
);
