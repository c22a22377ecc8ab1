import { exportResponse } from "../../http/export-response.ts";
import { exportLogSpans } from "../../services/logs/export-log-spans.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("exportLogSpans", async (c) => {
  const { format, ...search } = c.req.valid("json");
  const pages = exportLogSpans(c.var.ctx, search);
  // The first page before the first byte: a bad cursor, project or prompt is an ordinary error response.
  const first = await pages.next();
  const { contentType, body } = exportResponse(first, pages, c.var.logger, { format, kind: "span" });
  c.header("Content-Type", contentType);
  // The contract types the body as one line's JSON; the body is a stream of lines or rows (export-response.ts).
  return c.body(body, 200) as unknown as ReturnType<typeof c.json<never, 200>>;
});
