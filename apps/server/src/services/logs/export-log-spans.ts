import type { ServiceContext } from "../context.ts";
import type { BodyOf, Unread } from "../operation-input.ts";
import type { Page } from "../pagination.ts";
import { exportPages } from "./export-pages.ts";
import type { LogSpan } from "./search-items.ts";
import { logSpanPages } from "./search-log-spans.ts";

/**
 * Every span matching the search, page after page (the search's own query and cursors, logSpanPages), from
 * `cursor` on. Lazy: the first `next()` checks the project, prompt and cursor and reads the first page, so
 * a caller that awaits it before answering turns those errors into ordinary error responses; each later page
 * is read only when the caller asks for it, which is how a slow reader keeps the server's memory flat.
 */
export async function* exportLogSpans(
  ctx: ServiceContext,
  // `format` is how the route writes the pages (http/export-stream.ts), not which pages are read.
  body: Omit<BodyOf<"exportLogSpans">, "format">,
): AsyncGenerator<Page<LogSpan>, void, undefined> {
  const {
    projectId,
    promptId,
    model,
    provider,
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
  const pages = await logSpanPages(ctx, {
    projectId,
    promptId,
    model,
    provider,
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
