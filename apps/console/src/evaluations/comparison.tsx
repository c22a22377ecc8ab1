import { $api, errorMessage, type Schemas } from "../api.ts";
import { formatCost, formatLatency, formatTokens } from "../format.ts";
import { useEvaluationsSearch } from "./evaluations-page.tsx";
import { RowValues, useColumnNames } from "./run-detail.tsx";
import { deltaTone, formatDelta, formatRate } from "./view.ts";

/** Rows compared at once; the API's largest page. */
const ROWS_PAGE = 200;

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
  const comparison = $api.useQuery("get", "/prompts/{promptId}/evaluations/{evaluationId}/comparison", {
    params: {
      path: { promptId, evaluationId: candidateId },
      query: { baselineId, limit: ROWS_PAGE, ...(search.change && { change: search.change }) },
    },
  });
  const datasetId = comparison.data?.datasetId;
  const nameOf = useColumnNames(datasetId);
  const rows = $api.useQuery(
    "get",
    "/datasets/{datasetId}/rows",
    { params: { path: { datasetId: datasetId as string }, query: { limit: 200 } } },
    { enabled: datasetId !== undefined },
  );
  const valuesOf = (rowId: string) => rows.data?.rows.find((row) => row.id === rowId)?.values;

  if (comparison.error) {
    return (
      <p role="alert" className="error">
        {errorMessage(comparison.error)}
      </p>
    );
  }
  if (!comparison.data) return <p>Loading the comparison…</p>;
  const { totals } = comparison.data;
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
          {comparison.data.rows.map((row) => {
            const values = valuesOf(row.rowId);
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
      {comparison.data.rows.length === 0 && <p>No rows{search.change ? ` ${search.change}` : ""}.</p>}
      {comparison.data.pagination.hasMore && <p className="hint">The first {ROWS_PAGE} rows are shown.</p>}
    </section>
  );
}
