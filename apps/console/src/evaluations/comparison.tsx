import { useInfiniteQuery } from "@tanstack/react-query";
import { useEffect, useMemo } from "react";
import { errorMessage, fetchClient, type Schemas } from "../api.ts";
import { formatCost, formatLatency, formatTokens } from "../format.ts";
import { useEvaluationsSearch } from "./evaluations-page.tsx";
import { RowValues, useColumnNames } from "./run-detail.tsx";
import { deltaTone, formatDelta, formatRate } from "./view.ts";

/** Rows compared, and dataset rows read, a page at a time: the API's largest page. */
const ROWS_PAGE = 200;
const COMPARISON_PATH = "/prompts/{promptId}/evaluations/{evaluationId}/comparison";
const ROWS_PATH = "/datasets/{datasetId}/rows";

type Totals = Schemas["EvaluationRunTotals"];
const FIGURES: {
  label: string;
  kind: "rate" | "cost" | "latency" | "tokens";
  of: (totals: Totals) => string;
  delta: (delta: Schemas["EvaluationTotalsDelta"]) => number | null;
}[] = [
  { label: "Pass rate", kind: "rate", of: (t) => formatRate(t.passRate), delta: (d) => d.passRate },
  { label: "Cost", kind: "cost", of: (t) => formatCost(t.totalCost), delta: (d) => d.totalCost },
  { label: "Latency (sum)", kind: "latency", of: (t) => formatLatency(t.totalLatency), delta: (d) => d.totalLatency },
  { label: "Tokens", kind: "tokens", of: (t) => formatTokens(t.totalTokenCount), delta: (d) => d.totalTokenCount },
];

function Side({ result }: { result: Schemas["EvaluationResult"] | null }) {
  if (!result) return <span className="hint">(no result)</span>;
  return (
    <>
      <span className={`grade grade-${result.grade}`}>{result.grade}</span> {result.score.toFixed(2)}
      <pre className="output">{result.output ?? "(no output)"}</pre>
    </>
  );
}

/** The selected run (candidate) against a baseline: totals with deltas, and row by row what changed. */
export function Comparison({ candidateId, baselineId }: { candidateId: string; baselineId: string }) {
  const { promptId, search, update } = useEvaluationsSearch();
  const comparisonQuery = { baselineId, limit: ROWS_PAGE, ...(search.change && { change: search.change }) };
  const comparison = useInfiniteQuery({
    queryKey: ["get", COMPARISON_PATH, { promptId, candidateId, ...comparisonQuery }],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam, signal }) => {
      const reply = await fetchClient.GET(COMPARISON_PATH, {
        params: { path: { promptId, evaluationId: candidateId }, query: { ...comparisonQuery, cursor: pageParam } },
        signal,
      });
      if (!reply.data) throw reply.error;
      return reply.data;
    },
    getNextPageParam: (page) => page.pagination.nextCursor ?? undefined,
  });
  const first = comparison.data?.pages[0];
  const compared = useMemo(() => comparison.data?.pages.flatMap((page) => page.rows) ?? [], [comparison.data]);
  const datasetId = first?.datasetId;
  const nameOf = useColumnNames(datasetId);
  // The compared rows' values, from the dataset's rows read oldest first until every compared row is among them
  // (the comparison has no row expansion; a filtered comparison may skip many dataset rows).
  const rows = useInfiniteQuery({
    queryKey: ["get", ROWS_PATH, { datasetId, sort: "createdAt:asc", limit: ROWS_PAGE }],
    enabled: datasetId !== undefined,
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam, signal }) => {
      const reply = await fetchClient.GET(ROWS_PATH, {
        params: {
          path: { datasetId: datasetId as string },
          query: { sort: "createdAt:asc", limit: ROWS_PAGE, cursor: pageParam },
        },
        signal,
      });
      if (!reply.data) throw reply.error;
      return reply.data;
    },
    getNextPageParam: (page) => page.pagination.nextCursor ?? undefined,
  });
  const valuesById = useMemo(
    () => new Map(rows.data?.pages.flatMap((page) => page.rows.map((row) => [row.id, row.values] as const))),
    [rows.data],
  );
  const missingValues = compared.some((row) => !valuesById.has(row.rowId));
  const { hasNextPage: moreRows, isFetchingNextPage: fetchingRows, fetchNextPage: fetchMoreRows } = rows;
  useEffect(() => {
    if (missingValues && moreRows && !fetchingRows) void fetchMoreRows();
  }, [missingValues, moreRows, fetchingRows, fetchMoreRows]);

  if (comparison.error) {
    return (
      <p role="alert" className="error">
        {errorMessage(comparison.error)}
      </p>
    );
  }
  if (!first) return <p>Loading the comparison…</p>;
  const { totals } = first;
  const { changes } = totals;

  return (
    <section aria-labelledby="comparison-title" className="comparison">
      <h2 id="comparison-title">Comparison with the baseline</h2>
      <table className="grid totals" aria-label="Totals">
        <thead>
          <tr>
            <th scope="col">Figure</th>
            <th scope="col">Baseline</th>
            <th scope="col">This run</th>
            <th scope="col">Change</th>
          </tr>
        </thead>
        <tbody>
          {FIGURES.map((figure) => {
            const delta = figure.delta(totals.delta);
            return (
              <tr key={figure.label}>
                <th scope="row">{figure.label}</th>
                <td>{figure.of(totals.baseline)}</td>
                <td>{figure.of(totals.candidate)}</td>
                <td className={`delta ${deltaTone(figure.kind, delta)}`}>{formatDelta(figure.kind, delta)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <p className="change-counts">
        <span className="change-regressed">{changes.regressed} regressed</span> · {changes.improved} improved ·{" "}
        {changes.changed} changed · {changes.unchanged} unchanged · {changes.added} added · {changes.removed} removed
      </p>
      <label>
        <input
          type="checkbox"
          checked={search.change === "regressed"}
          onChange={(event) => update({ change: event.target.checked ? "regressed" : undefined })}
        />{" "}
        Regressions only
      </label>
      <table className="grid compared" aria-label="Compared rows">
        <thead>
          <tr>
            <th scope="col">Change</th>
            <th scope="col">Row</th>
            <th scope="col">Baseline</th>
            <th scope="col">This run</th>
          </tr>
        </thead>
        <tbody>
          {compared.map((row) => {
            const values = valuesById.get(row.rowId);
            return (
              <tr key={row.rowId} className={`change-${row.change}`}>
                <td>
                  <span className={`change change-${row.change}`}>{row.change}</span>
                </td>
                <td className="wrap">
                  {values ? <RowValues values={values} nameOf={nameOf} /> : <code>{row.rowId}</code>}
                </td>
                <td className="wrap">
                  <Side result={row.baseline} />
                </td>
                <td className="wrap">
                  <Side result={row.candidate} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {compared.length === 0 && <p>No rows{search.change ? ` ${search.change}` : ""}.</p>}
      {comparison.hasNextPage && (
        <p className="pager">
          <span>{compared.length} rows shown.</span>
          <button
            type="button"
            disabled={comparison.isFetchingNextPage}
            onClick={() => void comparison.fetchNextPage()}
          >
            {comparison.isFetchingNextPage ? "Loading more rows…" : "Load more rows"}
          </button>
        </p>
      )}
    </section>
  );
}
