import { useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { Link, useNavigate } from "@tanstack/react-router";
import { useVirtualizer } from "@tanstack/react-virtual";
import { type FormEvent, useEffect, useRef, useState } from "react";
import { errorMessage, fetchClient, type Schemas } from "../api.ts";
import { formatCost, formatLatency, formatTime, formatTokens } from "../format.ts";
import { useWorkspace } from "../layout.tsx";
import { tracesRoute } from "../router.tsx";
import { COLUMNS, COLUMNS_STORAGE_KEY, type ColumnId, readColumns, toggleColumn } from "./columns.ts";
import {
  parseAttributeFilter,
  parseScoreFilter,
  RANGES,
  STATUSES,
  type TraceFilters,
  traceSearchBody,
} from "./filters.ts";

type Trace = Schemas["LogTrace"];
const PAGE_SIZE = 100;
const ROW_HEIGHT = 36;
const LIVE_INTERVAL_MS = 2000;

function cell(trace: Trace, column: ColumnId) {
  switch (column) {
    case "latency":
      return formatLatency(trace.latency);
    case "tokens":
      return formatTokens(trace.totalInputTokens + trace.totalOutputTokens);
    case "cost":
      return formatCost(trace.totalCost);
    case "session":
      return trace.sessionId ?? "";
    case "user":
      return trace.userId ?? "";
    case "tags":
      return trace.tags.join(", ");
    case "scores":
      return trace.scores.map((score) => `${score.name}: ${String(score.latestValue)}`).join(", ");
  }
}

/** The chosen optional columns, kept in local storage. */
function useColumns() {
  const [columns, setColumns] = useState(() => readColumns(localStorage.getItem(COLUMNS_STORAGE_KEY)));
  const choose = (id: ColumnId, shown: boolean) => {
    const next = toggleColumn(columns, id, shown);
    localStorage.setItem(COLUMNS_STORAGE_KEY, JSON.stringify(next));
    setColumns(next);
  };
  return [columns, choose] as const;
}

/**
 * The project's traces, newest first: filters in the URL, a virtualised table, the next page on scroll, and a
 * live tail that polls for traces started since the newest one shown and puts them on top.
 */
export function TraceList() {
  const { projectId } = useWorkspace();
  const search = tracesRoute.useSearch();
  const navigate = useNavigate();
  const { project: _project, ...filters } = search;
  const body = traceSearchBody(projectId as string, filters);
  const [columns, chooseColumn] = useColumns();
  const [choosingColumns, setChoosingColumns] = useState(false);
  const [formProblem, setFormProblem] = useState("");
  const [live, setLive] = useState(false);
  const [arrived, setArrived] = useState<Trace[]>([]);

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
  const paged = traces.data?.pages.flatMap((page) => page.traces) ?? [];
  const seen = new Set<string>();
  const rows = [...arrived, ...paged].filter((trace) => !seen.has(trace.id) && Boolean(seen.add(trace.id)));

  // Traces that arrived under other filters do not belong to these.
  const bodyKey = JSON.stringify(body);
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset exactly when the search changes
  useEffect(() => setArrived([]), [bodyKey]);
  const newest = rows[0]?.startedAt ?? body.startedAfter;
  const tail = useQuery({
    queryKey: ["liveTraces", body, newest],
    enabled: live && traces.isSuccess,
    refetchInterval: LIVE_INTERVAL_MS,
    queryFn: async () => {
      const reply = await fetchClient.POST("/logs/traces", {
        body: { ...body, limit: 200, ...(newest !== undefined && { startedAfter: newest }) },
      });
      if (!reply.data) throw new Error(errorMessage(reply.error));
      return reply.data.traces;
    },
  });
  useEffect(() => {
    const fresh = tail.data;
    if (!fresh || fresh.length === 0) return;
    setArrived((current) => {
      const known = new Set(current.map((trace) => trace.id));
      const added = fresh.filter((trace) => !known.has(trace.id));
      return added.length > 0 ? [...added, ...current] : current;
    });
  }, [tail.data]);

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
      attribute: text("attribute"),
      score: text("score"),
      status: STATUSES.find((status) => status === form.get("status")),
      from: range > 0 ? Date.now() - range : filters.from,
    };
    if (next.attribute && !parseAttributeFilter(next.attribute)) {
      return setFormProblem("Write the attribute filter as key = value (or key != value).");
    }
    if (next.score && !parseScoreFilter(next.score)) {
      return setFormProblem(
        "Write the score filter as name, an operator (= != > >= < <=) and a value, or name exists.",
      );
    }
    setFormProblem("");
    void navigate({ to: "/", search: { project: projectId, ...next } });
  }

  const paddingTop = items[0]?.start ?? 0;
  const paddingBottom = virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0);
  const shown = COLUMNS.filter((column) => columns.includes(column.id));
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
          Attribute <input name="attribute" defaultValue={filters.attribute ?? ""} placeholder="key = value" />
        </label>
        <label>
          Score <input name="score" defaultValue={filters.score ?? ""} placeholder="name >= 0.5" />
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
        {formProblem && (
          <p role="alert" className="error">
            {formProblem}
          </p>
        )}
      </form>
      <div className="list-tools">
        <label className="check">
          <input type="checkbox" checked={live} onChange={(event) => setLive(event.target.checked)} /> Live tail
        </label>
        <button type="button" aria-expanded={choosingColumns} onClick={() => setChoosingColumns(!choosingColumns)}>
          Columns
        </button>
        {/* Rendered only while open, so its labels do not stand beside the filters' for assistive technology. */}
        {choosingColumns && (
          <fieldset className="columns">
            <legend>Shown columns</legend>
            {COLUMNS.map((column) => (
              <label key={column.id} className="check">
                <input
                  type="checkbox"
                  checked={columns.includes(column.id)}
                  onChange={(event) => chooseColumn(column.id, event.target.checked)}
                />{" "}
                {column.label}
              </label>
            ))}
          </fieldset>
        )}
      </div>
      {traces.error && (
        <p role="alert" className="error">
          {traces.error.message}
        </p>
      )}
      <p className="count" aria-live="polite">
        {traces.isLoading ? "Loading…" : `${rows.length}${traces.hasNextPage ? "+" : ""} traces`}
        {live && " · live"}
      </p>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: the scrolling region must be reachable by keyboard */}
      <section className="scroller" ref={scroller} tabIndex={0} aria-label="Trace list">
        <table className="grid">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col">Started</th>
              {shown.map((column) => (
                <th scope="col" key={column.id}>
                  {column.label}
                </th>
              ))}
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
                  {shown.map((column) => (
                    <td key={column.id}>{cell(trace, column.id)}</td>
                  ))}
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
