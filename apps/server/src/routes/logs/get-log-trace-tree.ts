import { getLogTraceTree } from "../../services/logs/trace-tree.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("getLogTraceTree", async (c) =>
  c.json(await getLogTraceTree(c.var.ctx, c.req.valid("param")), 200),
);
