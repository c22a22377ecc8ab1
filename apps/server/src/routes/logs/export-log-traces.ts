import { exportResponse } from "../../http/export-response.ts";
import { exportLogTraces } from "../../services/logs/export-log-traces.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("exportLogTraces", async (c) => {
  const { format, ...search } = c.req.valid("json");
  const pages = exportLogTraces(c.var.ctx, search);
  // The first page before the first byte: a bad cursor or project is an ordinary error response.
  const first = await pages.next();
  const { contentType, body } = exportResponse(first, pages, c.var.logger, { format, kind: "trace" });
  c.header("Content-Type", contentType);
  // The contract types the body as one line's JSON; the body is a stream of lines or rows (export-response.ts).
  return c.body(body, 200) as unknown as ReturnType<typeof c.json<never, 200>>;
});
