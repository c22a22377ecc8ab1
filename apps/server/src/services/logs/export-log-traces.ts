import type { ServiceContext } from "../context.ts";
import type { BodyOf, Unread } from "../operation-input.ts";
import type { Page } from "../pagination.ts";
import { exportPages } from "./export-pages.ts";
import type { LogTrace } from "./search-items.ts";
import { logTracePages } from "./search-log-traces.ts";

/**
 * Every trace matching the search, page after page (the search's own query and cursors, logTracePages), from
 * `cursor` on. Lazy: the first `next()` checks the project and cursor and reads the first page, so
 * a caller that awaits it before answering turns those errors into ordinary error responses; each later page
 * is read only when the caller asks for it, which is how a slow reader keeps the server's memory flat.
 */
export async function* exportLogTraces(
  ctx: ServiceContext,
  // `format` is how the route writes the pages (http/export-stream.ts), not which pages are read.
  body: Omit<BodyOf<"exportLogTraces">, "format">,
): AsyncGenerator<Page<LogTrace>, void, undefined> {
  const {
    projectId,
    startedAfter,
    startedBefore,
    status,
    name,
    referenceId,
    sessionId,
    userId,
    filters,
    sort,
    cursor,
    ...unread
  } = body;
  unread satisfies Unread;
  const pages = await logTracePages(ctx, {
    projectId,
    startedAfter,
    startedBefore,
    status,
    name,
    referenceId,
    sessionId,
    userId,
    filters,
    sort,
  });
  yield* exportPages(pages, cursor);
}
