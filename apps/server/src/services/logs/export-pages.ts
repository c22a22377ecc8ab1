import type { Page } from "../pagination.ts";

/**
 * Items an export reads per query: the search's largest page, so that an export holds in memory at most what
 * one search page does, whatever the number of items it sends.
 */
export const EXPORT_PAGE_SIZE = 200;

/** Reads one page of a search (logSpanPages, logTracePages): its limit and the cursor it starts after. */
export type ReadPage<Item> = (page: { limit?: number; cursor?: string }) => Promise<Page<Item>>;

/** The search's pages from `cursor` on, each read only when the caller asks for it. */
export async function* exportPages<Item>(
  readPage: ReadPage<Item>,
  cursor: string | undefined,
): AsyncGenerator<Page<Item>, void, undefined> {
  let position = cursor;
  for (;;) {
    const page = await readPage({ limit: EXPORT_PAGE_SIZE, cursor: position });
    yield page;
    if (page.pagination.nextCursor === null) return;
    position = page.pagination.nextCursor;
  }
}
