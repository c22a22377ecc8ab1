import { useInfiniteQuery } from "@tanstack/react-query";
import { Link, useNavigate } from "@tanstack/react-router";
import { errorMessage, fetchClient, type Schemas } from "../api.ts";
import { formatCost, formatTime, formatTokens } from "../format.ts";
import { useWorkspace } from "../layout.tsx";
import { sessionsRoute } from "../router.tsx";
import { type LogGroupSort, type SessionsTab, SORTS } from "./sessions.ts";

const PAGE_SIZE = 50;
type Row = Schemas["LogSessionList"]["sessions"][number] | Schemas["LogUserList"]["users"][number];

/** One page of sessions or users, both answering the same list shape. */
async function listPage(tab: SessionsTab, projectId: string, sort: LogGroupSort, cursor: string | undefined) {
  const params = { path: { projectId }, query: { sort, limit: PAGE_SIZE, ...(cursor && { cursor }) } };
  if (tab === "users") {
    const reply = await fetchClient.GET("/projects/{projectId}/users", { params });
    if (!reply.data) throw new Error(errorMessage(reply.error));
    return { rows: reply.data.users as Row[], nextCursor: reply.data.pagination.nextCursor ?? undefined };
  }
  const reply = await fetchClient.GET("/projects/{projectId}/sessions", { params });
  if (!reply.data) throw new Error(errorMessage(reply.error));
  return { rows: reply.data.sessions as Row[], nextCursor: reply.data.pagination.nextCursor ?? undefined };
}

/** The project's sessions or end users with their totals: tab and sort in the URL, the next page on demand. */
export function SessionList() {
  const { projectId } = useWorkspace();
  const search = sessionsRoute.useSearch();
  const navigate = useNavigate();
  const tab: SessionsTab = search.tab ?? "sessions";
  const sort: LogGroupSort = search.sort ?? "lastSeenAt:desc";

  const list = useInfiniteQuery({
    queryKey: ["logGroups", tab, projectId, sort],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => listPage(tab, projectId as string, sort, pageParam),
    getNextPageParam: (page) => page.nextCursor,
  });
  const rows = list.data?.pages.flatMap((page) => page.rows) ?? [];
  const noun = tab === "users" ? "users" : "sessions";

  return (
    <section aria-labelledby="sessions-title">
      <h1 id="sessions-title">Sessions and users</h1>
      <nav aria-label="Sessions or users" className="tabs">
        <Link
          to="/sessions"
          search={{ project: projectId, ...(search.sort && { sort: search.sort }) }}
          aria-current={tab === "sessions" ? "page" : undefined}
        >
          Sessions
        </Link>
        <Link
          to="/sessions"
          search={{ project: projectId, tab: "users", ...(search.sort && { sort: search.sort }) }}
          aria-current={tab === "users" ? "page" : undefined}
        >
          Users
        </Link>
      </nav>
      <div className="filters">
        <label>
          Sort{" "}
          <select
            value={sort}
            onChange={(event) =>
              void navigate({
                to: "/sessions",
                search: { ...search, project: projectId, sort: event.target.value as LogGroupSort },
              })
            }
          >
            {SORTS.map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {candidate.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      {list.error && (
        <p role="alert" className="error">
          {list.error.message}
        </p>
      )}
      <p className="count" aria-live="polite">
        {list.isLoading ? "Loading…" : `${rows.length}${list.hasNextPage ? "+" : ""} ${noun}`}
      </p>
      <table className="grid">
        <caption className="sr-only">{tab === "users" ? "End users" : "Sessions"}</caption>
        <thead>
          <tr>
            <th scope="col">{tab === "users" ? "User" : "Session"}</th>
            <th scope="col">First seen</th>
            <th scope="col">Last seen</th>
            <th scope="col">Traces</th>
            <th scope="col">Errors</th>
            <th scope="col">Cost</th>
            <th scope="col">Input tokens</th>
            <th scope="col">Output tokens</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id}>
              <th scope="row">
                {tab === "users" ? (
                  <Link to="/" search={{ project: projectId, user: row.id }} title="This user's traces">
                    {row.id}
                  </Link>
                ) : (
                  <Link to="/sessions/$sessionId" params={{ sessionId: row.id }} search={{ project: projectId }}>
                    {row.id}
                  </Link>
                )}
              </th>
              <td>{formatTime(row.firstSeenAt)}</td>
              <td>{formatTime(row.lastSeenAt)}</td>
              <td>{formatTokens(row.traceCount)}</td>
              <td>{formatTokens(row.errorCount)}</td>
              <td>{formatCost(row.totalCost)}</td>
              <td>{formatTokens(row.totalInputTokens)}</td>
              <td>{formatTokens(row.totalOutputTokens)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.hasNextPage && (
        <button type="button" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
          {list.isFetchingNextPage ? "Loading…" : `More ${noun}`}
        </button>
      )}
    </section>
  );
}
