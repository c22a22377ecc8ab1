/**
 * The playground: a value for each of the saved draft's variables, Run (runPrompt, which logs the call as a
 * trace), and the answer with its tokens, cost and latency. It runs the saved draft, as the server does.
 */
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { errorMessage, fetchClient, type Schemas } from "../api.ts";
import { formatCost, formatLatency, formatTokens } from "../format.ts";

type RunResult = Schemas["RunPromptResponse"];

interface PlaygroundProps {
  promptId: string;
  projectId: string;
  /** The saved draft's variables (derived by the server). */
  variables: readonly string[];
  /** Why Run is not offered (unsaved edits, a key that may not run); null when it is. */
  blocked: string | null;
}

export function Playground({ promptId, projectId, variables, blocked }: PlaygroundProps) {
  const [values, setValues] = useState<Record<string, string>>({});
  const [running, setRunning] = useState(false);
  const [result, setResult] = useState<RunResult | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  async function run() {
    setRunning(true);
    setFailure(null);
    const reply = await fetchClient.POST("/prompts/{promptId}/run", {
      params: { path: { promptId } },
      body: { variables: Object.fromEntries(variables.map((name) => [name, values[name] ?? ""])) },
    });
    setRunning(false);
    if (reply.data) setResult(reply.data);
    else {
      setResult(null);
      setFailure(errorMessage(reply.error));
    }
  }

  return (
    <section aria-labelledby="playground-title" className="playground">
      <h2 id="playground-title">Playground</h2>
      {variables.length === 0 ? (
        <p className="hint">The draft has no variables.</p>
      ) : (
        <div className="variables">
          {variables.map((name) => (
            <label key={name}>
              {name}
              <textarea
                rows={2}
                value={values[name] ?? ""}
                onChange={(event) => setValues({ ...values, [name]: event.target.value })}
              />
            </label>
          ))}
        </div>
      )}
      {blocked ? (
        <p className="hint">{blocked}</p>
      ) : (
        <div className="actions">
          <button type="button" onClick={run} disabled={running}>
            {running ? "Running…" : "Run"}
          </button>
        </div>
      )}
      <div aria-live="polite">
        {failure && (
          <p role="alert" className="error">
            {failure}
          </p>
        )}
        {result && (
          <section className="run-result" aria-label="Answer">
            <div className="answer">
              {result.messages
                .flatMap((message) => message.content)
                .map((part, index) =>
                  part.modality === "text" ? (
                    // biome-ignore lint/suspicious/noArrayIndexKey: parts of one answer, replaced as a whole
                    <p key={index}>{part.value}</p>
                  ) : part.modality === "tool-call" ? (
                    // biome-ignore lint/suspicious/noArrayIndexKey: parts of one answer, replaced as a whole
                    <pre key={index}>{`${part.name}(${part.arguments})`}</pre>
                  ) : null,
                )}
            </div>
            <dl className="facts">
              <dt>Tokens</dt>
              <dd>
                {formatTokens(result.usage.inputTokens)} in · {formatTokens(result.usage.outputTokens)} out
              </dd>
              <dt>Cost</dt>
              <dd>{formatCost(result.cost)}</dd>
              <dt>Latency</dt>
              <dd>{formatLatency(result.latencyMs)}</dd>
              <dt>Model</dt>
              <dd>
                {result.provider} · {result.model}
              </dd>
            </dl>
            <Link to="/traces/$traceId" params={{ traceId: result.traceId }} search={{ project: projectId }}>
              Open the trace
            </Link>
          </section>
        )}
      </div>
    </section>
  );
}
