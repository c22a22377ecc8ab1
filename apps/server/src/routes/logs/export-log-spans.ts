import { ndjsonExport } from "../../http/ndjson.ts";
import { exportLogSpans } from "../../services/logs/export-log-spans.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("exportLogSpans", async (c) => {
  const pages = exportLogSpans(c.var.ctx, c.req.valid("json"));
  // The first page before the first byte: a bad cursor, project or prompt is an ordinary error response.
  const first = await pages.next();
  c.header("Content-Type", "application/x-ndjson");
  // The contract types the body as one line's JSON; the body is a stream of lines (ndjson.ts).
  return c.body(ndjsonExport(first, pages, c.var.logger), 200) as unknown as ReturnType<typeof c.json<never, 200>>;
});
