import { ndjsonExport } from "../../http/ndjson.ts";
import { exportLogTraces } from "../../services/logs/export-log-traces.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("exportLogTraces", async (c) => {
  const pages = exportLogTraces(c.var.ctx, c.req.valid("json"));
  // The first page before the first byte: a bad cursor or project is an ordinary error response.
  const first = await pages.next();
  c.header("Content-Type", "application/x-ndjson");
  // The contract types the body as one line's JSON; the body is a stream of lines (ndjson.ts).
  return c.body(ndjsonExport(first, pages, c.var.logger), 200) as unknown as ReturnType<typeof c.json<never, 200>>;
});
