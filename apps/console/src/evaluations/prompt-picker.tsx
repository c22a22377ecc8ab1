import { PromptTable } from "../prompts/prompt-table.tsx";

/** Evaluations belong to a prompt: the project's prompts, each leading to its evaluators and runs. */
export function EvaluationsHome() {
  return (
    <section aria-labelledby="evaluations-title">
      <h1 id="evaluations-title">Evaluations</h1>
      <p className="hint">Pick a prompt to see its evaluators and evaluation runs.</p>
      <PromptTable
        label="Prompts to evaluate"
        heading="Prompt"
        to="/evaluations/$promptId"
        empty="No prompts in this project yet."
      />
    </section>
  );
}
