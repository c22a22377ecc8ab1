import { Link } from "@tanstack/react-router";
import { $api } from "../api.ts";
import { formatTime } from "../format.ts";
import { useWorkspace } from "../layout.tsx";

/** Evaluations belong to a prompt: the project's prompts, each leading to its evaluators and runs. */
export function EvaluationsHome() {
  const { projectId } = useWorkspace();
  const prompts = $api.useQuery("get", "/prompts", {
    params: { query: { projectId: projectId as string, limit: 200 } },
  });
  return (
    <section aria-labelledby="evaluations-title">
      <h1 id="evaluations-title">Evaluations</h1>
      <p className="hint">Pick a prompt to see its evaluators and evaluation runs.</p>
      {prompts.isLoading && <p>Loading…</p>}
      <table className="grid" aria-label="Prompts to evaluate">
        <thead>
          <tr>
            <th scope="col">Prompt</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {prompts.data?.prompts.map((prompt) => (
            <tr key={prompt.id}>
              <td>
                <Link to="/evaluations/$promptId" params={{ promptId: prompt.id }} search={{ project: projectId }}>
                  {prompt.title || prompt.id}
                </Link>
              </td>
              <td>{formatTime(prompt.updatedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {prompts.data?.prompts.length === 0 && <p>No prompts in this project yet.</p>}
    </section>
  );
}
