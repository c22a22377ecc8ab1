import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { $api, errorMessage, fetchClient, type Schemas } from "../api.ts";
import { formatTime } from "../format.ts";
import { useWorkspace } from "../layout.tsx";
import { useEvaluationsSearch } from "./evaluations-page.tsx";
import { isFinished } from "./view.ts";

/** The prompt's runs, newest first; polled while one of them is unfinished. */
export function useRuns(promptId: string) {
  return $api.useQuery(
    "get",
    "/prompts/{promptId}/evaluations",
    { params: { path: { promptId }, query: { limit: 50 } } },
    {
      refetchInterval: (query) => (query.state.data?.evaluations.some((run) => !isFinished(run.status)) ? 1000 : false),
    },
  );
}

/** The titles of the prompt's evaluators, by id (runs name their evaluator by id). */
export function useEvaluatorTitles(promptId: string) {
  const evaluators = $api.useQuery("get", "/prompts/{promptId}/evaluators", {
    params: { path: { promptId }, query: { limit: 200 } },
  });
  const list = evaluators.data?.evaluators ?? [];
  return { list, titleOf: (id: string) => list.find((evaluator) => evaluator.id === id)?.title ?? id };
}

/** Starts one run per chosen evaluator over a dataset, against the draft or a deployment. */
export function StartRun() {
  const { projectId, canEdit } = useWorkspace();
  const { promptId, update } = useEvaluationsSearch();
  const queryClient = useQueryClient();
  const { list: evaluators } = useEvaluatorTitles(promptId);
  const datasets = $api.useQuery(
    "get",
    "/datasets",
    { params: { query: { projectId: projectId as string, limit: 200 } } },
    { enabled: canEdit },
  );
  const deployments = $api.useQuery(
    "get",
    "/prompts/{promptId}/deployments",
    { params: { path: { promptId }, query: { limit: 200 } } },
    { enabled: canEdit },
  );
  const environments = $api.useQuery(
    "get",
    "/projects/{projectId}/deployment-environments",
    { params: { path: { projectId: projectId as string }, query: { limit: 200 } } },
    { enabled: canEdit },
  );
  const [datasetId, setDatasetId] = useState("");
  const [deploymentId, setDeploymentId] = useState("");
  const [chosen, setChosen] = useState<string[]>([]);
  const [failure, setFailure] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);
  if (!canEdit) return null;

  const active = evaluators.filter((evaluator) => evaluator.status === "active");
  const environmentName = (id: string) =>
    environments.data?.deploymentEnvironments.find((environment) => environment.id === id)?.name ?? id;

  async function start(event: FormEvent) {
    event.preventDefault();
    setFailure(null);
    setStarting(true);
    const started: Schemas["EvaluationRun"][] = [];
    for (const evaluatorId of chosen) {
      const reply = await fetchClient.POST("/prompts/{promptId}/evaluations", {
        params: { path: { promptId } },
        body: {
          evaluatorId,
          ...(datasetId && { datasetId }),
          ...(deploymentId && { deploymentId }),
        },
      });
      if (!reply.data) {
        setFailure(errorMessage(reply.error));
        break;
      }
      started.push(reply.data);
    }
    setStarting(false);
    await queryClient.invalidateQueries({ queryKey: ["get", "/prompts/{promptId}/evaluations"] });
    const first = started[0];
    if (first) update({ run: first.runId, grade: undefined, baseline: undefined, change: undefined });
  }

  return (
    <>
      <h2 id="start-run-title">Start a run</h2>
      <form className="actions start-run" onSubmit={start} aria-labelledby="start-run-title">
        <label>
          Dataset{" "}
          <select value={datasetId} onChange={(event) => setDatasetId(event.target.value)}>
            <option value="">Each evaluator's own</option>
            {datasets.data?.datasets.map((dataset) => (
              <option key={dataset.id} value={dataset.id}>
                {dataset.title} ({dataset.rowCount} rows)
              </option>
            ))}
          </select>
        </label>
        <label>
          Version{" "}
          <select value={deploymentId} onChange={(event) => setDeploymentId(event.target.value)}>
            <option value="">Draft</option>
            {deployments.data?.deployments.map((deployment) => (
              <option key={deployment.id} value={deployment.id}>
                {environmentName(deployment.deploymentEnvironmentId)} · {formatTime(deployment.createdAt)}
              </option>
            ))}
          </select>
        </label>
        <fieldset className="inline">
          <legend>Evaluators</legend>
          {active.map((evaluator) => (
            <label key={evaluator.id}>
              <input
                type="checkbox"
                checked={chosen.includes(evaluator.id)}
                onChange={(event) =>
                  setChosen(
                    event.target.checked ? [...chosen, evaluator.id] : chosen.filter((id) => id !== evaluator.id),
                  )
                }
              />{" "}
              {evaluator.title}
            </label>
          ))}
          {active.length === 0 && <span className="hint">No active evaluator.</span>}
        </fieldset>
        <button type="submit" disabled={starting || chosen.length === 0}>
          Start run
        </button>
        {failure && (
          <p role="alert" className="error">
            {failure}
          </p>
        )}
      </form>
    </>
  );
}

/** A run's progress as a bar with its figures beside it. */
export function RunProgress({ run }: { run: Schemas["EvaluationRun"] }) {
  const { completedRows, failedRows, totalRows, percent } = run.progress;
  return (
    <span className="run-progress">
      <progress max={100} value={percent} aria-label={`Progress ${percent} %`} /> {completedRows + failedRows} /{" "}
      {totalRows}
    </span>
  );
}

/** The prompt's runs; choosing one shows its results (its id is in the URL). */
export function RunList() {
  const { promptId, search, update } = useEvaluationsSearch();
  const runs = useRuns(promptId);
  const { titleOf } = useEvaluatorTitles(promptId);
  const list = runs.data?.evaluations ?? [];
  return (
    <>
      <h2 id="runs-title">Runs</h2>
      <table className="grid" aria-labelledby="runs-title">
        <thead>
          <tr>
            <th scope="col">Submitted</th>
            <th scope="col">Evaluator</th>
            <th scope="col">Version</th>
            <th scope="col">Status</th>
            <th scope="col">Progress</th>
            <th scope="col">Pass / fail / unknown</th>
          </tr>
        </thead>
        <tbody>
          {list.map((run) => (
            <tr key={run.runId} className={run.runId === search.run ? "selected" : undefined}>
              <td>
                <button
                  type="button"
                  className="link"
                  aria-current={run.runId === search.run ? "true" : undefined}
                  onClick={() => update({ run: run.runId, grade: undefined, baseline: undefined, change: undefined })}
                >
                  {formatTime(run.timeline.submittedAt)}
                </button>
              </td>
              <td>{titleOf(run.evaluatorId)}</td>
              <td>{run.deploymentId ? "deployment" : "draft"}</td>
              <td>
                <span className={`status run-${run.status}`}>{run.status}</span>
              </td>
              <td>
                <RunProgress run={run} />
              </td>
              <td>
                {run.metrics.passRuns} / {run.metrics.failRuns} / {run.metrics.unknownRuns}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {runs.isSuccess && list.length === 0 && <p>No runs yet.</p>}
    </>
  );
}
