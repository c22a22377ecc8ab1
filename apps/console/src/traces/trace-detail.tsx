import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Link } from "@tanstack/react-router";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useMemo, useRef } from "react";
import { errorMessage, fetchClient, type Schemas } from "../api.ts";
import { AddToDataset } from "../datasets/add-to-dataset.tsx";
import { formatCost, formatLatency, formatTime, formatTokens } from "../format.ts";
import { useWorkspace } from "../layout.tsx";
import { traceRoute } from "../router.tsx";
import { Json, Messages } from "./content-view.tsx";
import { Scores } from "./scores.tsx";
import { readableContent } from "./span-content.ts";
import { spanTree } from "./span-tree.ts";

type Span = Schemas["LogSpan"];
type SpanSummary = Schemas["LogSpanSummary"];
const ROW_HEIGHT = 30;

/**
 * Every span of the trace as a summary, in one request (getLogTraceTree, ADR 0026): the tree and the
 * waterfall need no content, and a trace of 10,000 spans is one read rather than 50 pages of full spans.
 */
async function traceTree(projectId: string, traceId: string): Promise<SpanSummary[]> {
  const reply = await fetchClient.GET("/projects/{projectId}/traces/{traceId}/tree", {
    params: { path: { projectId, traceId } },
  });
  if (!reply.data) throw new Error(errorMessage(reply.error));
  return reply.data.spans;
}

/** The query of one span read in full (getLogSpan). A stored span does not change, so it is read once. */
function spanQuery(projectId: string, spanId: string) {
  return {
    queryKey: ["span", projectId, spanId],
    staleTime: Number.POSITIVE_INFINITY,
    queryFn: async () => {
      const reply = await fetchClient.GET("/projects/{projectId}/spans/{spanId}", {
        params: { path: { projectId, spanId } },
      });
      if (!reply.data) throw new Error(errorMessage(reply.error));
      return reply.data;
    },
  };
}

/** One trace: its totals, its span tree on a waterfall, and the selected span read in full. */
export function TraceDetail() {
  const { projectId } = useWorkspace();
  const { traceId } = traceRoute.useParams();
  const search = traceRoute.useSearch();
  const queryClient = useQueryClient();
  // A shared link names its span: read it alongside the tree rather than after it.
  useEffect(() => {
    if (search.span) void queryClient.prefetchQuery(spanQuery(projectId as string, search.span));
  }, [queryClient, projectId, search.span]);
  const trace = useQuery({
    queryKey: ["trace", projectId, traceId],
    queryFn: async () => {
      const reply = await fetchClient.POST("/logs/traces", {
        body: { projectId: projectId as string, logTraceId: traceId, limit: 1 },
      });
      if (!reply.data) throw new Error(errorMessage(reply.error));
      return reply.data.traces[0] ?? null;
    },
  });
  const spans = useQuery({
    queryKey: ["traceTree", projectId, traceId],
    queryFn: () => traceTree(projectId as string, traceId),
  });
  const rows = useMemo(() => (spans.data && spans.data.length > 0 ? spanTree(spans.data) : []), [spans.data]);
  const selected = rows.find((row) => row.span.id === search.span)?.span ?? rows[0]?.span;

  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 20,
  });

  if (trace.error || spans.error) {
    return (
      <p role="alert" className="error">
        {(trace.error ?? spans.error)?.message}
      </p>
    );
  }
  if (trace.isLoading || spans.isLoading) return <p>Loading…</p>;
  if (!trace.data) return <p role="alert">No such trace in this project.</p>;
  const t = trace.data;
  return (
    <section aria-labelledby="trace-title" className="trace">
      <p>
        <Link to="/" search={{ project: projectId }}>
          ← Traces
        </Link>
      </p>
      <h1 id="trace-title">{t.name || t.id}</h1>
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          <span className={`status status-${t.status}`}>{t.status}</span>
        </dd>
        <dt>Started</dt>
        <dd>{formatTime(t.startedAt)}</dd>
        <dt>Latency</dt>
        <dd>{formatLatency(t.latency)}</dd>
        <dt>Tokens</dt>
        <dd>
          {formatTokens(t.totalInputTokens)} in · {formatTokens(t.totalOutputTokens)} out
        </dd>
        <dt>Cost</dt>
        <dd>{formatCost(t.totalCost)}</dd>
        <dt>Spans</dt>
        <dd>{rows.length}</dd>
        {t.sessionId && (
          <>
            <dt>Session</dt>
            <dd>{t.sessionId}</dd>
          </>
        )}
        {t.tags.length > 0 && (
          <>
            <dt>Tags</dt>
            <dd>{t.tags.join(", ")}</dd>
          </>
        )}
      </dl>
      <Scores traceId={t.id} />
      <div className="split">
        <nav className="tree" aria-label="Span tree" ref={scroller}>
          <ul style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
            {virtualizer.getVirtualItems().map((item) => {
              const row = rows[item.index];
              if (!row) return null;
              const isSelected = row.span.id === selected?.id;
              return (
                <li
                  key={row.span.id}
                  style={{ position: "absolute", top: item.start, height: ROW_HEIGHT, left: 0, right: 0 }}
                >
                  <Link
                    to="/traces/$traceId"
                    params={{ traceId }}
                    search={{ project: projectId, span: row.span.id }}
                    aria-current={isSelected ? "true" : undefined}
                    className={isSelected ? "span-row selected" : "span-row"}
                    replace
                  >
                    <span className="span-name" style={{ paddingLeft: row.depth * 14 }}>
                      {row.span.name} <small>{row.span.contentType}</small>
                    </span>
                    <span className="bar-track" aria-hidden="true">
                      <span
                        className={`bar status-${row.span.status}`}
                        style={{ left: `${row.offset * 100}%`, width: `max(2px, ${row.width * 100}%)` }}
                      />
                    </span>
                    <span className="span-latency">{formatLatency(row.span.latency)}</span>
                  </Link>
                </li>
              );
            })}
          </ul>
        </nav>
        {selected && <SelectedSpan spanId={selected.id} raw={search.view === "raw"} />}
      </div>
    </section>
  );
}

/** The selected span read in full (getLogSpan), fetched when it is selected. */
function SelectedSpan({ spanId, raw }: { spanId: string; raw: boolean }) {
  const { projectId } = useWorkspace();
  const span = useQuery(spanQuery(projectId as string, spanId));
  if (span.error) {
    return (
      <p role="alert" className="error">
        {span.error.message}
      </p>
    );
  }
  if (!span.data) return <p className="span-panel">Loading span…</p>;
  return <SpanPanel span={span.data} raw={raw} />;
}

function SpanPanel({ span, raw }: { span: Span; raw: boolean }) {
  const { projectId } = useWorkspace();
  const content = readableContent(span.parsedContent);
  const params = { traceId: span.logTraceId };
  return (
    <article className="span-panel" aria-labelledby="span-title">
      <h2 id="span-title">
        {span.name} <small>{span.contentType}</small>
      </h2>
      <dl className="facts">
        <dt>Status</dt>
        <dd>{span.status}</dd>
        <dt>Latency</dt>
        <dd>{formatLatency(span.latency)}</dd>
        <dt>Tokens</dt>
        <dd>
          {formatTokens(span.promptTokens)} in · {formatTokens(span.completionTokens)} out
        </dd>
        <dt>Cost</dt>
        <dd>{formatCost(span.cost)}</dd>
      </dl>
      <AddToDataset span={span} />
      <div className="view-switch">
        <Link to="/traces/$traceId" params={params} search={{ project: projectId, span: span.id }} replace>
          Readable
        </Link>
        <Link to="/traces/$traceId" params={params} search={{ project: projectId, span: span.id, view: "raw" }} replace>
          Raw
        </Link>
      </div>
      {raw || content.kind === "raw" ? (
        <>
          <h3>Raw content</h3>
          <pre className="raw">{JSON.stringify(span.parsedContent, null, 2)}</pre>
        </>
      ) : content.kind === "chat" ? (
        <>
          <h3>Input</h3>
          <Messages messages={content.input} label="Input messages" />
          <h3>Output</h3>
          <Messages messages={content.output} label="Output messages" />
        </>
      ) : (
        <>
          <h3>Input</h3>
          <Json value={content.input} label="Input" />
          <h3>Output</h3>
          <Json value={content.output} label="Output" />
        </>
      )}
      <h3>Attributes</h3>
      <Json value={span.attributes} label="Attributes" />
      {span.tags.length > 0 && (
        <>
          <h3>Tags</h3>
          <p>{span.tags.join(", ")}</p>
        </>
      )}
      <Scores traceId={span.logTraceId} spanId={span.id} />
      {Object.keys(span.events ?? {}).length > 0 && (
        <>
          <h3>Events</h3>
          <Json value={span.events} label="Events" />
        </>
      )}
    </article>
  );
}
