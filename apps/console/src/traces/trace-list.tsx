import { useInfiniteQuery } from "@tanstack/react-query";
import { Link, useNavigate } from "@tanstack/react-router";
import { useVirtualizer } from "@tanstack/react-virtual";
import { type FormEvent, useEffect, useRef } from "react";
import { errorMessage, fetchClient } from "../api.ts";
import { formatCost, formatLatency, formatTime, formatTokens } from "../format.ts";
import { useWorkspace } from "../layout.tsx";
import { tracesRoute } from "../router.tsx";
import { RANGES, STATUSES, type TraceFilters, traceSearchBody } from "./filters.ts";

const PAGE_SIZE = 100;
const ROW_HEIGHT = 36;

/** The project's traces, newest first: filters in the URL, a virtualised table, the next page on scroll. */
export function TraceList() {
  const { projectId } = useWorkspace();
  const search = tracesRoute.useSearch();
  const navigate = useNavigate();
  const { project: _project, ...filters } = search;
  const body = traceSearchBody(projectId as string, filters);

  const traces = useInfiniteQuery({
    queryKey: ["searchLogTraces", body],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam }) => {
      const reply = await fetchClient.POST("/logs/traces", {
        body: { ...body, limit: PAGE_SIZE, ...(pageParam && { cursor: pageParam }) },
      });
      if (!reply.data) throw new Error(errorMessage(reply.error));
      return reply.data;
    },
    getNextPageParam: (page) => page.pagination.nextCursor ?? undefined,
  });
  const rows = traces.data?.pages.flatMap((page) => page.traces) ?? [];

  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
  });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items.at(-1)?.index ?? 0;
  useEffect(() => {
    if (lastIndex >= rows.length - 10 && traces.hasNextPage && !traces.isFetchingNextPage) void traces.fetchNextPage();
  }, [lastIndex, rows.length, traces]);

  function applyFilters(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? "").trim() || undefined;
    const range = Number(form.get("range"));
    const next: TraceFilters = {
      name: text("name"),
      session: text("session"),
      user: text("user"),
      tag: text("tag"),
      status: STATUSES.find((status) => status === form.get("status")),
      from: range > 0 ? Date.now() - range : undefined,
    };
    void navigate({ to: "/", search: { project: projectId, ...next } });
  }

  const paddingTop = items[0]?.start ?? 0;
  const paddingBottom = virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0);
  return (
    <section aria-labelledby="traces-title">
      <h1 id="traces-title">Traces</h1>
      <form className="filters" onSubmit={applyFilters} aria-label="Trace filters" key={JSON.stringify(filters)}>
        <label>
          Name <input name="name" defaultValue={filters.name ?? ""} />
        </label>
        <label>
          Session <input name="session" defaultValue={filters.session ?? ""} />
        </label>
        <label>
          User <input name="user" defaultValue={filters.user ?? ""} />
        </label>
        <label>
          Tag <input name="tag" defaultValue={filters.tag ?? ""} />
        </label>
        <label>
          Status{" "}
          <select name="status" defaultValue={filters.status ?? ""}>
            <option value="">Any</option>
            {STATUSES.map((status) => (
              <option key={status}>{status}</option>
            ))}
          </select>
        </label>
        <label>
          Started{" "}
          <select name="range" defaultValue="">
            <option value="">{filters.from ? `since ${formatTime(filters.from)}` : "Any time"}</option>
            {RANGES.map((range) => (
              <option key={range.ms} value={range.ms}>
                {range.label}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Apply</button>
        <Link to="/" search={{ project: projectId }}>
          Clear
        </Link>
      </form>
      {traces.error && (
        <p role="alert" className="error">
          {traces.error.message}
        </p>
      )}
      <p className="count" aria-live="polite">
        {traces.isLoading ? "Loading…" : `${rows.length}${traces.hasNextPage ? "+" : ""} traces`}
      </p>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the scrolling region must be reachable by keyboard */}
      <section className="scroller" ref={scroller} tabIndex={0} aria-label="Trace list">
        <table className="grid">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col">Started</th>
              <th scope="col">Latency</th>
              <th scope="col">Tokens</th>
              <th scope="col">Cost</th>
              <th scope="col">Session</th>
              <th scope="col">Tags</th>
            </tr>
          </thead>
          <tbody>
            {paddingTop > 0 && <tr style={{ height: paddingTop }} />}
            {items.map((item) => {
              const trace = rows[item.index];
              if (!trace) return null;
              return (
                <tr key={trace.id} style={{ height: ROW_HEIGHT }}>
                  <td>
                    <Link to="/traces/$traceId" params={{ traceId: trace.id }} search={{ project: projectId }}>
                      {trace.name || trace.id}
                    </Link>
                  </td>
                  <td>
                    <span className={`status status-${trace.status}`}>{trace.status}</span>
                  </td>
                  <td>{formatTime(trace.startedAt)}</td>
                  <td>{formatLatency(trace.latency)}</td>
                  <td>{formatTokens(trace.totalInputTokens + trace.totalOutputTokens)}</td>
                  <td>{formatCost(trace.totalCost)}</td>
                  <td>{trace.sessionId ?? ""}</td>
                  <td>{trace.tags.join(", ")}</td>
                </tr>
              );
            })}
            {paddingBottom > 0 && <tr style={{ height: paddingBottom }} />}
          </tbody>
        </table>
      </section>
    </section>
  );
}
