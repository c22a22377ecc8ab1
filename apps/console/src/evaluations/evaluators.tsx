import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, useId, useState } from "react";
import { $api, errorMessage, fetchClient, type Schemas } from "../api.ts";
import { formatTime } from "../format.ts";
import { useWorkspace } from "../layout.tsx";
import { useEvaluationsSearch } from "./evaluations-page.tsx";
import {
  belongsTo,
  COMPARISONS,
  type ConfigDraft,
  configOf,
  draftOfConfig,
  draftOfOnline,
  EMPTY_CONFIG,
  EVALUATOR_TYPES,
  type EvaluatorType,
  type FormProblem,
  JSON_MODES,
  LATENCY_UNITS,
  LENGTH_UNITS,
  MATCH_OPERATORS,
  type OnlineDraft,
  onlineOf,
  PROVIDER_NAMES,
  takesList,
} from "./evaluator-config.ts";
import { formatRate } from "./view.ts";

/** The prompt's evaluators; choosing one opens it in the editor below (its id is in the URL). */
export function EvaluatorList() {
  const { canEdit } = useWorkspace();
  const { promptId, search, update } = useEvaluationsSearch();
  const evaluators = $api.useQuery("get", "/prompts/{promptId}/evaluators", {
    params: { path: { promptId }, query: { limit: 200 } },
  });
  const list = evaluators.data?.evaluators ?? [];
  return (
    <>
      <h2 id="evaluators-title">Evaluators</h2>
      {canEdit && (
        <p>
          <button type="button" onClick={() => update({ evaluator: "new" })} aria-pressed={search.evaluator === "new"}>
            New evaluator
          </button>
        </p>
      )}
      <table className="grid" aria-labelledby="evaluators-title">
        <thead>
          <tr>
            <th scope="col">Title</th>
            <th scope="col">Status</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {list.map((evaluator) => (
            <tr key={evaluator.id} className={evaluator.id === search.evaluator ? "selected" : undefined}>
              <td>
                <button type="button" className="link" onClick={() => update({ evaluator: evaluator.id })}>
                  {evaluator.title}
                </button>
              </td>
              <td>
                <span className={`status status-${evaluator.status}`}>{evaluator.status}</span>
              </td>
              <td>{formatTime(evaluator.updatedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {evaluators.isSuccess && list.length === 0 && <p>No evaluators yet.</p>}
    </>
  );
}

/** The problems the API (or the browser) found with one field, shown under it. */
function Problems({ path, problems }: { path: string; problems: FormProblem[] }) {
  const mine = problems.filter((problem) => belongsTo(problem.field, path));
  if (mine.length === 0) return null;
  return (
    <span className="field-error error" id={problemId(path)}>
      {mine.map((problem) => `${problem.field} ${problem.issue}`).join("; ")}
    </span>
  );
}
const problemId = (path: string) => `problem-${path.replace(/\W/g, "-")}`;

/** What ties a control to its label and its problems. */
interface ControlProps {
  id: string;
  "aria-describedby"?: string;
  "aria-invalid"?: boolean;
}

/**
 * A labelled form field with its problems under it (and announced with the control); `path` is the field's
 * place in the request body.
 */
function Field(props: {
  label: string;
  path: string;
  problems: FormProblem[];
  children: (control: ControlProps) => ReactNode;
}) {
  const id = useId();
  const invalid = props.problems.some((problem) => belongsTo(problem.field, props.path));
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      {props.children({
        id,
        ...(invalid && { "aria-describedby": problemId(props.path), "aria-invalid": true }),
      })}
      <Problems path={props.path} problems={props.problems} />
    </div>
  );
}

/** Fields an API problem may name that the form has, by the config type; others are shown above the form. */
const FIELDS_OF_TYPE: Record<EvaluatorType, string[]> = {
  "llm-as-a-judge": ["config.value", "config.judgeModel"],
  "text-matcher": ["config.operator", "config.value", "config.caseSensitive"],
  json: ["config.mode", "config.expected", "config.schema"],
  javascript: ["config.code", "config.timeoutMs"],
  cost: ["config.operator", "config.threshold"],
  latency: ["config.operator", "config.threshold", "config.unit"],
  "response-length": ["config.operator", "config.threshold", "config.unit"],
};
const COMMON_FIELDS = ["title", "datasetId", "online.sampleRate", "online.filters", "status"];

interface EditorProps {
  evaluatorId: string;
  /** What the last save of this evaluator said. */
  notice: string | null;
  onSaved: (evaluatorId: string, notice: string) => void;
}

/** Creates (`evaluatorId` "new") or edits an evaluator; a read-only key sees it without edit controls. */
export function EvaluatorEditor({ evaluatorId, notice, onSaved }: EditorProps) {
  const isNew = evaluatorId === "new";
  const { promptId } = useEvaluationsSearch();
  const evaluator = $api.useQuery(
    "get",
    "/prompts/{promptId}/evaluators/{evaluatorId}",
    { params: { path: { promptId, evaluatorId } } },
    { enabled: !isNew },
  );
  if (evaluator.error) {
    return (
      <p role="alert" className="error">
        {errorMessage(evaluator.error)}
      </p>
    );
  }
  if (!isNew && !evaluator.data) return <p>Loading…</p>;
  return <EvaluatorForm saved={evaluator.data} notice={notice} onSaved={onSaved} />;
}

function EvaluatorForm({
  saved,
  notice,
  onSaved,
}: Omit<EditorProps, "evaluatorId"> & { saved?: Schemas["Evaluator"] }) {
  const { projectId, canEdit } = useWorkspace();
  const { promptId, update } = useEvaluationsSearch();
  const queryClient = useQueryClient();
  const datasets = $api.useQuery("get", "/datasets", {
    params: { query: { projectId: projectId as string, limit: 200 } },
  });
  const providers = $api.useQuery("get", "/providers", { params: { query: { limit: 200 } } });
  const [title, setTitle] = useState(saved?.title ?? "");
  const [datasetId, setDatasetId] = useState(saved?.datasetId ?? "");
  const [status, setStatus] = useState<Schemas["EvaluatorStatus"]>(saved?.status ?? "active");
  const [config, setConfig] = useState<ConfigDraft>(saved ? draftOfConfig(saved.config) : EMPTY_CONFIG);
  const [online, setOnline] = useState<OnlineDraft>(draftOfOnline(saved?.online));
  const [problems, setProblems] = useState<FormProblem[]>([]);
  const [failure, setFailure] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const datasetList = datasets.data?.datasets ?? [];
  const chosenDataset = datasetId || datasetList[0]?.id || "";
  const set = (changes: Partial<ConfigDraft>) => setConfig({ ...config, ...changes });

  async function submit(event: FormEvent) {
    event.preventDefault();
    setFailure(null);
    const parsedConfig = configOf(config);
    const parsedOnline = onlineOf(online);
    const local = [parsedConfig, parsedOnline].flatMap((parsed) => (parsed.ok ? [] : [parsed.problem]));
    if (!parsedConfig.ok || !parsedOnline.ok) {
      setProblems(local);
      setFailure("Fix the fields marked below.");
      return;
    }
    setSaving(true);
    const body = {
      title: title.trim(),
      datasetId: chosenDataset,
      config: parsedConfig.value,
      online: parsedOnline.value,
    };
    const reply = saved
      ? await fetchClient.PATCH("/prompts/{promptId}/evaluators/{evaluatorId}", {
          params: { path: { promptId, evaluatorId: saved.id } },
          body: { ...body, status },
        })
      : await fetchClient.POST("/prompts/{promptId}/evaluators", {
          params: { path: { promptId } },
          body: { ...body, projectId: projectId as string },
        });
    setSaving(false);
    if (!reply.data) {
      setProblems(reply.error?.error.details ?? []);
      setFailure(errorMessage(reply.error));
      return;
    }
    setProblems([]);
    await queryClient.invalidateQueries({ queryKey: ["get", "/prompts/{promptId}/evaluators"] });
    await queryClient.invalidateQueries({ queryKey: ["get", "/prompts/{promptId}/evaluators/{evaluatorId}"] });
    onSaved(reply.data.id, saved ? "Evaluator saved." : "Evaluator created.");
    if (!saved) update({ evaluator: reply.data.id }, { replace: true });
  }

  const shown = new Set([...COMMON_FIELDS, ...FIELDS_OF_TYPE[config.type]]);
  const elsewhere = problems.filter((problem) => ![...shown].some((path) => belongsTo(problem.field, path)));
  const heading = saved ? `Evaluator · ${saved.title}` : "New evaluator";
  return (
    <section aria-labelledby="evaluator-title" className="evaluator-editor">
      <h2 id="evaluator-title">{heading}</h2>
      <div aria-live="polite">
        {notice && <p className="notice">{notice}</p>}
        {failure && (
          <div role="alert" className="error">
            <p>{failure}</p>
            {elsewhere.length > 0 && (
              <ul>
                {elsewhere.map((problem) => (
                  <li key={`${problem.field}:${problem.issue}`}>
                    {problem.field || "request"} {problem.issue}
                  </li>
                ))}
              </ul>
            )}
          </div>
        )}
      </div>
      <form onSubmit={submit} aria-label={heading} noValidate>
        <fieldset disabled={!canEdit} className="form-grid">
          <legend className="sr-only">Evaluator</legend>
          <Field label="Title" path="title" problems={problems}>
            {(control) => (
              <input {...control} value={title} onChange={(event) => setTitle(event.target.value)} maxLength={200} />
            )}
          </Field>
          <Field label="Dataset" path="datasetId" problems={problems}>
            {(control) => (
              <select {...control} value={chosenDataset} onChange={(event) => setDatasetId(event.target.value)}>
                {datasetList.map((dataset) => (
                  <option key={dataset.id} value={dataset.id}>
                    {dataset.title}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {saved && (
            <Field label="Status" path="status" problems={problems}>
              {(control) => (
                <select
                  {...control}
                  value={status}
                  onChange={(event) => setStatus(event.target.value as typeof status)}
                >
                  <option value="active">active</option>
                  <option value="archived">archived</option>
                </select>
              )}
            </Field>
          )}
          <Field label="Type" path="config.type" problems={problems}>
            {(control) => (
              <select
                {...control}
                value={config.type}
                onChange={(event) => set({ type: event.target.value as EvaluatorType })}
              >
                {EVALUATOR_TYPES.map((option) => (
                  <option key={option.type} value={option.type}>
                    {option.label} ({option.group})
                  </option>
                ))}
              </select>
            )}
          </Field>
          <ConfigFields config={config} set={set} problems={problems} providers={providers.data?.providers ?? []} />
          <fieldset className="form-grid">
            <legend>Online evaluation (live spans)</legend>
            <Field label="Sample rate (0–1)" path="online.sampleRate" problems={problems}>
              {(control) => (
                <input
                  {...control}
                  type="number"
                  min={0}
                  max={1}
                  step={0.05}
                  value={online.sampleRate}
                  onChange={(event) => setOnline({ ...online, sampleRate: event.target.value })}
                />
              )}
            </Field>
            <Field label="Filters (JSON conditions of the span search)" path="online.filters" problems={problems}>
              {(control) => (
                <textarea
                  {...control}
                  rows={3}
                  spellCheck={false}
                  placeholder='[{"column": "tags", "operator": "contains", "value": "production"}]'
                  value={online.filters}
                  onChange={(event) => setOnline({ ...online, filters: event.target.value })}
                />
              )}
            </Field>
          </fieldset>
        </fieldset>
        <div className="actions">
          {canEdit && (
            <button type="submit" disabled={saving}>
              {saved ? "Save evaluator" : "Create evaluator"}
            </button>
          )}
          <button type="button" onClick={() => update({ evaluator: undefined })}>
            Close
          </button>
        </div>
      </form>
      {saved && <OnlineStats evaluatorId={saved.id} />}
    </section>
  );
}

interface ConfigFieldsProps {
  config: ConfigDraft;
  set: (changes: Partial<ConfigDraft>) => void;
  problems: FormProblem[];
  providers: Schemas["Provider"][];
}

/** The fields of the chosen type (the others keep what was typed, should the type change back). */
function ConfigFields({ config, set, problems, providers }: ConfigFieldsProps) {
  const comparison = (
    <Field label="Passes when the value is" path="config.operator" problems={problems}>
      {(control) => (
        <select
          {...control}
          value={config.comparison}
          onChange={(event) => set({ comparison: event.target.value as ConfigDraft["comparison"] })}
        >
          {COMPARISONS.map((operator) => (
            <option key={operator}>{operator}</option>
          ))}
        </select>
      )}
    </Field>
  );
  const threshold = (label: string) => (
    <Field label={label} path="config.threshold" problems={problems}>
      {(control) => (
        <input
          {...control}
          type="number"
          min={0}
          value={config.threshold}
          onChange={(event) => set({ threshold: event.target.value })}
        />
      )}
    </Field>
  );
  switch (config.type) {
    case "llm-as-a-judge":
      return (
        <>
          <Field label="Rubric" path="config.value" problems={problems}>
            {(control) => (
              <textarea
                {...control}
                rows={4}
                value={config.rubric}
                placeholder="Pass if the answer is polite and matches {{expected}}."
                onChange={(event) => set({ rubric: event.target.value })}
              />
            )}
          </Field>
          <Field label="Judge provider record" path="config.judgeModel.providerId" problems={problems}>
            {(control) => (
              <select
                {...control}
                value={config.judgeProviderId}
                onChange={(event) => set({ judgeProviderId: event.target.value })}
              >
                <option value="">(the prompt's)</option>
                {providers.map((provider) => (
                  <option key={provider.id} value={provider.id}>
                    {provider.displayName}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Judge provider kind" path="config.judgeModel.provider" problems={problems}>
            {(control) => (
              <select
                {...control}
                value={config.judgeProvider}
                onChange={(event) => set({ judgeProvider: event.target.value })}
              >
                <option value="">(the prompt's)</option>
                {PROVIDER_NAMES.map((name) => (
                  <option key={name}>{name}</option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Judge model" path="config.judgeModel.model" problems={problems}>
            {(control) => (
              <input
                {...control}
                value={config.judgeModel}
                placeholder="the prompt's model"
                onChange={(event) => set({ judgeModel: event.target.value })}
              />
            )}
          </Field>
        </>
      );
    case "text-matcher":
      return (
        <>
          <Field label="Passes when the output" path="config.operator" problems={problems}>
            {(control) => (
              <select
                {...control}
                value={config.matchOperator}
                onChange={(event) => set({ matchOperator: event.target.value as ConfigDraft["matchOperator"] })}
              >
                {MATCH_OPERATORS.map((operator) => (
                  <option key={operator}>{operator}</option>
                ))}
              </select>
            )}
          </Field>
          <Field
            label={takesList(config.matchOperator) ? "Strings (one a line)" : "Text"}
            path="config.value"
            problems={problems}
          >
            {(control) => (
              <textarea
                {...control}
                rows={takesList(config.matchOperator) ? 3 : 1}
                spellCheck={false}
                value={config.matchValue}
                onChange={(event) => set({ matchValue: event.target.value })}
              />
            )}
          </Field>
          <div className="field">
            <label>
              <input
                type="checkbox"
                checked={config.caseSensitive}
                onChange={(event) => set({ caseSensitive: event.target.checked })}
              />{" "}
              Case-sensitive
            </label>
          </div>
        </>
      );
    case "json":
      return (
        <>
          <Field label="Mode" path="config.mode" problems={problems}>
            {(control) => (
              <select
                {...control}
                value={config.jsonMode}
                onChange={(event) => set({ jsonMode: event.target.value as ConfigDraft["jsonMode"] })}
              >
                {JSON_MODES.map((mode) => (
                  <option key={mode}>{mode}</option>
                ))}
              </select>
            )}
          </Field>
          {config.jsonMode === "exact-match" && (
            <Field label="Expected JSON" path="config.expected" problems={problems}>
              {(control) => (
                <textarea
                  {...control}
                  rows={4}
                  spellCheck={false}
                  value={config.expected}
                  onChange={(event) => set({ expected: event.target.value })}
                />
              )}
            </Field>
          )}
          {config.jsonMode === "schema" && (
            <Field label="JSON Schema" path="config.schema" problems={problems}>
              {(control) => (
                <textarea
                  {...control}
                  rows={6}
                  spellCheck={false}
                  value={config.schema}
                  onChange={(event) => set({ schema: event.target.value })}
                />
              )}
            </Field>
          )}
        </>
      );
    case "javascript":
      return (
        <>
          <Field label="Code (body of a function of data)" path="config.code" problems={problems}>
            {(control) => (
              <textarea
                {...control}
                rows={8}
                spellCheck={false}
                className="code"
                placeholder="return { grade: 'pass', score: 1, reason: 'ok' };"
                value={config.code}
                onChange={(event) => set({ code: event.target.value })}
              />
            )}
          </Field>
          <Field label="Timeout (ms)" path="config.timeoutMs" problems={problems}>
            {(control) => (
              <input
                {...control}
                type="number"
                min={100}
                max={30000}
                value={config.timeoutMs}
                onChange={(event) => set({ timeoutMs: event.target.value })}
              />
            )}
          </Field>
        </>
      );
    case "cost":
      return (
        <>
          {comparison}
          {threshold("Threshold (USD)")}
        </>
      );
    case "latency":
      return (
        <>
          {comparison}
          {threshold("Threshold")}
          <Field label="Unit" path="config.unit" problems={problems}>
            {(control) => (
              <select
                {...control}
                value={config.latencyUnit}
                onChange={(event) => set({ latencyUnit: event.target.value as ConfigDraft["latencyUnit"] })}
              >
                {LATENCY_UNITS.map((unit) => (
                  <option key={unit}>{unit}</option>
                ))}
              </select>
            )}
          </Field>
        </>
      );
    case "response-length":
      return (
        <>
          {comparison}
          {threshold("Threshold")}
          <Field label="Unit" path="config.unit" problems={problems}>
            {(control) => (
              <select
                {...control}
                value={config.lengthUnit}
                onChange={(event) => set({ lengthUnit: event.target.value as ConfigDraft["lengthUnit"] })}
              >
                {LENGTH_UNITS.map((unit) => (
                  <option key={unit}>{unit}</option>
                ))}
              </select>
            )}
          </Field>
        </>
      );
  }
}

const WINDOWS = [
  { label: "Last hour", ms: 3_600_000 },
  { label: "Last 24 hours", ms: 86_400_000 },
  { label: "Last 7 days", ms: 7 * 86_400_000 },
] as const;

/** What the evaluator did with live spans over a window. */
function OnlineStats({ evaluatorId }: { evaluatorId: string }) {
  const { promptId } = useEvaluationsSearch();
  // The window's start is fixed when chosen, so the query (and its cache key) stays the same between renders.
  const [range, setRange] = useState<{ ms: number; from: number }>(() => ({
    ms: WINDOWS[1].ms,
    from: Date.now() - WINDOWS[1].ms,
  }));
  const stats = $api.useQuery(
    "get",
    "/prompts/{promptId}/evaluators/{evaluatorId}/online-stats",
    { params: { path: { promptId, evaluatorId }, query: { from: range.from } } },
    { refetchInterval: 10_000 },
  );
  return (
    <>
      <h3>Live spans</h3>
      <label>
        Window{" "}
        <select
          value={range.ms}
          onChange={(event) => {
            const ms = Number(event.target.value);
            setRange({ ms, from: Date.now() - ms });
          }}
        >
          {WINDOWS.map((option) => (
            <option key={option.ms} value={option.ms}>
              {option.label}
            </option>
          ))}
        </select>
      </label>
      {stats.error && <p className="error">{errorMessage(stats.error)}</p>}
      {stats.data && (
        <dl className="facts online-stats">
          <dt>Queued</dt>
          <dd>{stats.data.queued}</dd>
          <dt>Graded</dt>
          <dd>{stats.data.graded}</dd>
          <dt>Pending</dt>
          <dd>{stats.data.pending}</dd>
          <dt>Failed</dt>
          <dd>{stats.data.failed}</dd>
          <dt>Pass rate</dt>
          <dd>{formatRate(stats.data.passRate)}</dd>
        </dl>
      )}
    </>
  );
}
