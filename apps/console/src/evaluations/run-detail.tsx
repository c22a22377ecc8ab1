import { useInfiniteQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { $api, errorMessage, fetchClient, type Schemas } from "../api.ts";
import { formatCost, formatLatency, formatTime, formatTokens } from "../format.ts";
import { ErrorAlert } from "../forms.tsx";
import { useWorkspace } from "../layout.tsx";
import { useEvaluationsSearch } from "./evaluations-page.tsx";
import { RunProgress, useEvaluatorTitles, useRuns } from "./runs.tsx";
import { GRADES, type Grade, isCancellable, isFinished, runLabel } from "./view.ts";

/** Results read at once (the API's largest page); "Load more results" reads the next page by its cursor. */
const RESULTS_PAGE = 200;

/** The names of a dataset's columns by id (rows carry their values by column id). */
export function useColumnNames(datasetId: string | undefined) {
  const dataset = $api.useQuery(
    "get",
    "/datasets/{datasetId}",
    { params: { path: { datasetId: datasetId as string } } },
    { enabled: datasetId !== undefined },
  );
  const columns = dataset.data?.columns ?? [];
  return (id: string) => columns.find((column) => column.id === id)?.name ?? id;
}

/** A dataset row's values, as column name and value. */
export function RowValues({ values, nameOf }: { values: Schemas["DatasetRowValues"]; nameOf: (id: string) => string }) {
  return (
    <dl className="row-values">
      {Object.entries(values).map(([columnId, value]) => (
        <div key={columnId}>
          <dt>{nameOf(columnId)}</dt>
          <dd>{value === null ? "–" : typeof value === "string" ? value : JSON.stringify(value)}</dd>
        </div>
      ))}
    </dl>
  );
}

/** One run: live progress while it runs, cancel, its totals, a baseline to compare with, and its results. */
export function RunDetail({ runId }: { runId: string }) {
  const { canEdit } = useWorkspace();
  const { promptId, search, update } = useEvaluationsSearch();
  const queryClient = useQueryClient();
  const { titleOf } = useEvaluatorTitles(promptId);
  const runs = useRuns(promptId);
  const [failure, setFailure] = useState<string | null>(null);
  const run = $api.useQuery(
    "get",
    "/prompts/{promptId}/evaluations/{evaluationId}",
    { params: { path: { promptId, evaluationId: runId } } },
    { refetchInterval: (query) => (isFinished(query.state.data?.status) ? false : 1000) },
  );
  const finished = isFinished(run.data?.status);
  const resultsPath = "/prompts/{promptId}/evaluations/{evaluationId}/results";
  const resultsQuery = {
    expand: "row",
    sort: "createdAt:asc",
    limit: RESULTS_PAGE,
    ...(search.grade && { grade: search.grade }),
  } as const;
  const results = useInfiniteQuery({
    // Under the path's key, so what refreshes the results' queries refreshes these pages too.
    queryKey: ["get", resultsPath, { promptId, runId, ...resultsQuery }],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam, signal }) => {
      const reply = await fetchClient.GET(resultsPath, {
        params: { path: { promptId, evaluationId: runId }, query: { ...resultsQuery, cursor: pageParam } },
        signal,
      });
      if (!reply.data) throw reply.error;
      return reply.data;
    },
    getNextPageParam: (page) => page.pagination.nextCursor ?? undefined,
    // While the run runs, every page read so far is read again: the last one grows and may gain a next page.
    refetchInterval: finished ? false : 1000,
  });
  const nameOf = useColumnNames(run.data?.datasetId);
  // The last poll may have come before the last results: read them once more when the run has finished.
  const refetchResults = results.refetch;
  useEffect(() => {
    if (finished) void refetchResults();
  }, [finished, refetchResults]);

  async function cancel() {
    setFailure(null);
    const reply = await fetchClient.POST("/prompts/{promptId}/evaluations/{evaluationId}/cancel", {
      params: { path: { promptId, evaluationId: runId } },
    });
    if (!reply.data) setFailure(errorMessage(reply.error));
    await queryClient.invalidateQueries({ queryKey: ["get", "/prompts/{promptId}/evaluations/{evaluationId}"] });
    await queryClient.invalidateQueries({ queryKey: ["get", "/prompts/{promptId}/evaluations"] });
  }

  if (run.error) return <ErrorAlert error={run.error} />;
  if (!run.data) return <p>Loading…</p>;
  const current = run.data;
  // A baseline is another run over the same dataset.
  const baselines = (runs.data?.evaluations ?? []).filter(
    (other) => other.runId !== runId && other.datasetId === current.datasetId,
  );
  const list = results.data?.pages.flatMap((page) => page.results) ?? [];

  return (
    <section aria-labelledby="run-title" className="run-detail">
      <h2 id="run-title">Run · {formatTime(current.timeline.submittedAt)}</h2>
      <div className="actions" aria-live="polite">
        <span className={`status run-${current.status}`}>{current.status}</span>
        <RunProgress run={current} />
        {canEdit && isCancellable(current.status) && (
          <button type="button" onClick={cancel}>
            Cancel run
          </button>
        )}
      </div>
      {failure && (
        <p role="alert" className="error">
          {failure}
        </p>
      )}
      {current.error && <p className="error">Run failed: {current.error}</p>}
      <dl className="facts">
        <dt>Evaluator</dt>
        <dd>{titleOf(current.evaluatorId)}</dd>
        <dt>Version</dt>
        <dd>{current.deploymentId ? `deployment ${current.deploymentId}` : "draft"}</dd>
        <dt>Pass / fail / unknown</dt>
        <dd>
          {current.metrics.passRuns} / {current.metrics.failRuns} / {current.metrics.unknownRuns}
        </dd>
        <dt>Cost</dt>
        <dd>{formatCost(current.metrics.totalCost)}</dd>
        <dt>Latency (sum)</dt>
        <dd>{formatLatency(current.metrics.totalLatency)}</dd>
        <dt>Tokens</dt>
        <dd>{formatTokens(current.metrics.totalTokenCount)}</dd>
      </dl>
      <div className="actions">
        <label>
          Compare with{" "}
          <select
            value={search.baseline ?? ""}
            onChange={(event) => update({ baseline: event.target.value || undefined, change: undefined })}
          >
            <option value="">(no baseline)</option>
            {baselines.map((other) => (
              <option key={other.runId} value={other.runId}>
                {runLabel(other, titleOf, formatTime)}
              </option>
            ))}
          </select>
        </label>
        <label>
          Grade{" "}
          <select
            value={search.grade ?? ""}
            onChange={(event) => update({ grade: (event.target.value || undefined) as Grade | undefined })}
          >
            <option value="">All</option>
            {GRADES.map((grade) => (
              <option key={grade}>{grade}</option>
            ))}
          </select>
        </label>
      </div>
      <h3 id="results-title">Results</h3>
      <table className="grid results" aria-labelledby="results-title">
        <thead>
          <tr>
            <th scope="col">Grade</th>
            <th scope="col">Score</th>
            <th scope="col">Reason</th>
            <th scope="col">Row</th>
            <th scope="col">Output</th>
          </tr>
        </thead>
        <tbody>
          {list.map((result) => (
            <tr key={result.id}>
              <td>
                <span className={`grade grade-${result.grade}`}>{result.grade}</span>
              </td>
              <td>{result.score.toFixed(2)}</td>
              <td className="wrap">{result.error ? `Error: ${result.error}` : result.reason}</td>
              <td className="wrap">
                {result.row ? <RowValues values={result.row.values} nameOf={nameOf} /> : <span>(row deleted)</span>}
              </td>
              <td className="wrap">
                <pre className="output">{result.output ?? "(no output)"}</pre>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {results.isSuccess && list.length === 0 && <p>No results{search.grade ? ` graded ${search.grade}` : ""} yet.</p>}
      {results.hasNextPage && (
        <p className="pager">
          <span>{list.length} results shown.</span>
          <button type="button" disabled={results.isFetchingNextPage} onClick={() => void results.fetchNextPage()}>
            {results.isFetchingNextPage ? "Loading more results…" : "Load more results"}
          </button>
        </p>
      )}
    </section>
  );
}
