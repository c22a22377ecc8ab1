import { getLogSpan } from "../../services/logs/trace-tree.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("getLogSpan", async (c) => c.json(await getLogSpan(c.var.ctx, c.req.valid("param")), 200));
