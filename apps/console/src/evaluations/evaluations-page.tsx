import { Link, useNavigate } from "@tanstack/react-router";
import { useState } from "react";
import { $api, errorMessage } from "../api.ts";
import { useWorkspace } from "../layout.tsx";
import { evaluationsRoute } from "../router.tsx";
import { Comparison } from "./comparison.tsx";
import { EvaluatorEditor, EvaluatorList } from "./evaluators.tsx";
import { RunDetail } from "./run-detail.tsx";
import { RunList, StartRun } from "./runs.tsx";
import type { EvaluationsSearch } from "./view.ts";

/**
 * Changes the screen's state in the URL, keeping the project and the rest of the state: what a person selects
 * here (an evaluator, a run, a filter, a baseline) is what a shared link shows.
 */
export function useEvaluationsSearch() {
  const navigate = useNavigate();
  const { promptId } = evaluationsRoute.useParams();
  const search = evaluationsRoute.useSearch();
  const update = (changes: Partial<EvaluationsSearch>, options: { replace?: boolean } = {}) =>
    void navigate({
      to: "/evaluations/$promptId",
      params: { promptId },
      search: (previous) => {
        const next: Record<string, unknown> = { ...previous, ...changes };
        return Object.fromEntries(Object.entries(next).filter(([, value]) => value !== undefined));
      },
      replace: options.replace,
    });
  return { promptId, search, update };
}

/** One prompt's evaluators, its runs, the selected run's results and its comparison with a baseline. */
export function EvaluationsPage() {
  const { projectId } = useWorkspace();
  const { promptId, search } = useEvaluationsSearch();
  // Kept here, not in the editor: creating an evaluator opens it in a new editor, which should still say so.
  const [saved, setSaved] = useState<{ evaluatorId: string; text: string } | null>(null);
  const prompt = $api.useQuery("get", "/prompts/{promptId}", {
    params: { path: { promptId }, query: { fields: "id,title" } },
  });

  if (prompt.error) {
    return (
      <p role="alert" className="error">
        {errorMessage(prompt.error)}
      </p>
    );
  }
  return (
    <section aria-labelledby="evaluations-title" className="evaluations">
      <p>
        <Link to="/evaluations" search={{ project: projectId }}>
          ← Evaluations
        </Link>{" "}
        ·{" "}
        <Link to="/prompts/$promptId" params={{ promptId }} search={{ project: projectId }}>
          Open the prompt
        </Link>
      </p>
      <h1 id="evaluations-title">Evaluations · {prompt.data?.title ?? "…"}</h1>
      <EvaluatorList />
      {search.evaluator && (
        <EvaluatorEditor
          key={search.evaluator}
          evaluatorId={search.evaluator}
          notice={saved?.evaluatorId === search.evaluator ? saved.text : null}
          onSaved={(evaluatorId, text) => setSaved({ evaluatorId, text })}
        />
      )}
      <StartRun />
      <RunList />
      {search.run && <RunDetail key={search.run} runId={search.run} />}
      {search.run && search.baseline && <Comparison candidateId={search.run} baselineId={search.baseline} />}
    </section>
  );
}
