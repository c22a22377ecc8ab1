import { useInfiniteQuery } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { errorMessage, fetchClient, type Schemas } from "../api.ts";
import { formatCost, formatLatency, formatTime, formatTokens } from "../format.ts";
import { useWorkspace } from "../layout.tsx";
import { sessionRoute } from "../router.tsx";
import { Messages } from "../traces/content-view.tsx";
import { conversation } from "./sessions.ts";

// A page of turns costs a span search per trace: keep it short.
const PAGE_SIZE = 20;
type Span = Schemas["LogSpan"];

/**
 * A trace's Model spans, enough for its turn: the first page in start order, and when there are more, the last
 * one (the answer) too. Spans carry their own `sessionId`, which writers may leave out, so they are found by trace.
 */
async function modelSpans(projectId: string, logTraceId: string): Promise<Span[]> {
  const search = (sort: "startedAt:asc" | "startedAt:desc", limit: number) =>
    fetchClient.POST("/logs/spans", {
      body: {
        projectId,
        logTraceId,
        filters: [{ column: "contentType", operator: "in", value: ["Model", "ModelStream"] }],
        sort,
        limit,
      },
    });
  const first = await search("startedAt:asc", 200);
  if (!first.data) throw new Error(errorMessage(first.error));
  if (!first.data.pagination.hasMore) return first.data.spans;
  const last = await search("startedAt:desc", 1);
  if (!last.data) throw new Error(errorMessage(last.error));
  return [...first.data.spans, ...last.data.spans];
}

/** One page of the session's turns: its traces, oldest first, each with its Model spans. */
async function turnsPage(projectId: string, sessionId: string, cursor: string | undefined) {
  const reply = await fetchClient.GET("/projects/{projectId}/sessions/{sessionId}/traces", {
    params: { path: { projectId, sessionId }, query: { limit: PAGE_SIZE, ...(cursor && { cursor }) } },
  });
  if (!reply.data) throw new Error(errorMessage(reply.error));
  const { traces, pagination } = reply.data;
  const spans = await Promise.all(traces.map((trace) => modelSpans(projectId, trace.id)));
  return { turns: conversation(traces, spans.flat()), nextCursor: pagination.nextCursor ?? undefined };
}

/** A session read as a conversation: for each trace, the user's message and the answer, with its numbers. */
export function SessionView() {
  const { projectId } = useWorkspace();
  const { sessionId } = sessionRoute.useParams();
  const pages = useInfiniteQuery({
    queryKey: ["sessionTurns", projectId, sessionId],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => turnsPage(projectId as string, sessionId, pageParam),
    getNextPageParam: (page) => page.nextCursor,
  });
  const turns = pages.data?.pages.flatMap((page) => page.turns) ?? [];

  return (
    <section aria-labelledby="session-title" className="session">
      <p>
        <Link to="/sessions" search={{ project: projectId }}>
          ← Sessions
        </Link>
      </p>
      <h1 id="session-title">Session {sessionId}</h1>
      {pages.error && (
        <p role="alert" className="error">
          {pages.error.message}
        </p>
      )}
      <p className="count" aria-live="polite">
        {pages.isLoading ? "Loading…" : `${turns.length}${pages.hasNextPage ? "+" : ""} turns`}
      </p>
      <ol className="turns" aria-label="Conversation">
        {turns.map((turn, index) => (
          <li key={turn.trace.id} className="turn">
            <h2>
              Turn {index + 1}:{" "}
              <Link
                to="/traces/$traceId"
                params={{ traceId: turn.trace.id }}
                search={{ project: projectId, ...(turn.answerSpanId && { span: turn.answerSpanId }) }}
              >
                {turn.trace.name || turn.trace.id}
              </Link>
            </h2>
            <p className="hint">
              {formatTime(turn.trace.startedAt)} UTC ·{" "}
              <span className={`status status-${turn.trace.status}`}>{turn.trace.status}</span> ·{" "}
              {formatLatency(turn.trace.latency)} ·{" "}
              {formatTokens(turn.trace.totalInputTokens + turn.trace.totalOutputTokens)} tokens ·{" "}
              {formatCost(turn.trace.totalCost)}
              {turn.trace.userId && ` · user ${turn.trace.userId}`}
            </p>
            {turn.question || turn.answer.length > 0 ? (
              <Messages
                messages={[...(turn.question ? [turn.question] : []), ...turn.answer]}
                label={`Turn ${index + 1}`}
              />
            ) : (
              <p className="hint">No chat messages in this trace's Model spans: open the trace to read it.</p>
            )}
          </li>
        ))}
      </ol>
      {pages.hasNextPage && (
        <button type="button" onClick={() => void pages.fetchNextPage()} disabled={pages.isFetchingNextPage}>
          {pages.isFetchingNextPage ? "Loading…" : "More turns"}
        </button>
      )}
    </section>
  );
}
