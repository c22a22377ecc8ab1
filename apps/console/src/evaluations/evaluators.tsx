import { useQueryClient } from "@tanstack/react-query";
import { createContext, type FormEvent, type ReactNode, useContext, useId, useState } from "react";
import { $api, errorMessage, fetchClient, type Schemas } from "../api.ts";
import { formatTime } from "../format.ts";
import { ErrorAlert } from "../forms.tsx";
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

/** What the API (or the browser) found wrong with the form, read by each field for its own. */
const FormProblems = createContext<FormProblem[]>([]);

/** The problems found with one field, shown under it. */
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
function Field(props: { label: string; path: string; children: (control: ControlProps) => ReactNode }) {
  const id = useId();
  const problems = useContext(FormProblems);
  const invalid = problems.some((problem) => belongsTo(problem.field, props.path));
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      {props.children({
        id,
        ...(invalid && { "aria-describedby": problemId(props.path), "aria-invalid": true }),
      })}
      <Problems path={props.path} problems={problems} />
    </div>
  );
}

/** A field's label and its place in the request body (where the problems the API reports name it). */
interface Placed {
  label: string;
  path: string;
}

/** A Field holding a select of `options`; `none` adds a first, empty choice with that label. */
function ChoiceField<T extends string>({
  value,
  options,
  none,
  onChange,
  ...placed
}: Placed & {
  value: string;
  options: readonly (T | { value: T; label: string })[];
  none?: string;
  onChange: (value: T) => void;
}) {
  return (
    <Field {...placed}>
      {(control) => (
        <select {...control} value={value} onChange={(event) => onChange(event.target.value as T)}>
          {none !== undefined && <option value="">{none}</option>}
          {options.map((option) =>
            typeof option === "string" ? (
              <option key={option}>{option}</option>
            ) : (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ),
          )}
        </select>
      )}
    </Field>
  );
}

/**
 * A Field holding text: a textarea of `rows` lines (spell-checking off: rubrics aside, it holds code, JSON or
 * patterns), or an input (of `input`'s attributes, e.g. a number's bounds) when `rows` is not given.
 */
function TextField({
  value,
  onChange,
  rows,
  placeholder,
  className,
  input,
  ...placed
}: Placed & {
  value: string;
  onChange: (value: string) => void;
  rows?: number;
  placeholder?: string;
  className?: string;
  input?: { type?: "number"; min?: number; max?: number; step?: number; maxLength?: number };
}) {
  return (
    <Field {...placed}>
      {(control) =>
        rows === undefined ? (
          <input
            {...control}
            {...input}
            value={value}
            placeholder={placeholder}
            onChange={(event) => onChange(event.target.value)}
          />
        ) : (
          <textarea
            {...control}
            rows={rows}
            spellCheck={false}
            className={className}
            placeholder={placeholder}
            value={value}
            onChange={(event) => onChange(event.target.value)}
          />
        )
      }
    </Field>
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
const STATUSES: readonly Schemas["EvaluatorStatus"][] = ["active", "archived"];

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
  if (evaluator.error) return <ErrorAlert error={evaluator.error} />;
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
        <FormProblems.Provider value={problems}>
          <fieldset disabled={!canEdit} className="form-grid">
            <legend className="sr-only">Evaluator</legend>
            <TextField label="Title" path="title" value={title} onChange={setTitle} input={{ maxLength: 200 }} />
            <ChoiceField
              label="Dataset"
              path="datasetId"
              value={chosenDataset}
              options={datasetList.map((dataset) => ({ value: dataset.id, label: dataset.title }))}
              onChange={setDatasetId}
            />
            {saved && (
              <ChoiceField label="Status" path="status" value={status} options={STATUSES} onChange={setStatus} />
            )}
            <ChoiceField
              label="Type"
              path="config.type"
              value={config.type}
              options={EVALUATOR_TYPES.map((option) => ({
                value: option.type,
                label: `${option.label} (${option.group})`,
              }))}
              onChange={(type: EvaluatorType) => set({ type })}
            />
            <ConfigFields config={config} set={set} providers={providers.data?.providers ?? []} />
            <fieldset className="form-grid">
              <legend>Online evaluation (live spans)</legend>
              <TextField
                label="Sample rate (0–1)"
                path="online.sampleRate"
                value={online.sampleRate}
                onChange={(sampleRate) => setOnline({ ...online, sampleRate })}
                input={{ type: "number", min: 0, max: 1, step: 0.05 }}
              />
              <TextField
                label="Filters (JSON conditions of the span search)"
                path="online.filters"
                rows={3}
                placeholder='[{"column": "tags", "operator": "contains", "value": "production"}]'
                value={online.filters}
                onChange={(filters) => setOnline({ ...online, filters })}
              />
            </fieldset>
          </fieldset>
        </FormProblems.Provider>
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
  providers: Schemas["Provider"][];
}

/** The fields of the chosen type (the others keep what was typed, should the type change back). */
function ConfigFields({ config, set, providers }: ConfigFieldsProps) {
  const comparison = (
    <ChoiceField
      label="Passes when the value is"
      path="config.operator"
      value={config.comparison}
      options={COMPARISONS}
      onChange={(comparison: ConfigDraft["comparison"]) => set({ comparison })}
    />
  );
  const threshold = (label: string) => (
    <TextField
      label={label}
      path="config.threshold"
      value={config.threshold}
      onChange={(threshold) => set({ threshold })}
      input={{ type: "number", min: 0 }}
    />
  );
  switch (config.type) {
    case "llm-as-a-judge":
      return (
        <>
          <TextField
            label="Rubric"
            path="config.value"
            rows={4}
            value={config.rubric}
            placeholder="Pass if the answer is polite and matches {{expected}}."
            onChange={(rubric) => set({ rubric })}
          />
          <ChoiceField
            label="Judge provider record"
            path="config.judgeModel.providerId"
            value={config.judgeProviderId}
            none="(the prompt's)"
            options={providers.map((provider) => ({ value: provider.id, label: provider.displayName }))}
            onChange={(judgeProviderId) => set({ judgeProviderId })}
          />
          <ChoiceField
            label="Judge provider kind"
            path="config.judgeModel.provider"
            value={config.judgeProvider}
            none="(the prompt's)"
            options={PROVIDER_NAMES}
            onChange={(judgeProvider) => set({ judgeProvider })}
          />
          <TextField
            label="Judge model"
            path="config.judgeModel.model"
            value={config.judgeModel}
            placeholder="the prompt's model"
            onChange={(judgeModel) => set({ judgeModel })}
          />
        </>
      );
    case "text-matcher":
      return (
        <>
          <ChoiceField
            label="Passes when the output"
            path="config.operator"
            value={config.matchOperator}
            options={MATCH_OPERATORS}
            onChange={(matchOperator: ConfigDraft["matchOperator"]) => set({ matchOperator })}
          />
          <TextField
            label={takesList(config.matchOperator) ? "Strings (one a line)" : "Text"}
            path="config.value"
            rows={takesList(config.matchOperator) ? 3 : 1}
            value={config.matchValue}
            onChange={(matchValue) => set({ matchValue })}
          />
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
          <ChoiceField
            label="Mode"
            path="config.mode"
            value={config.jsonMode}
            options={JSON_MODES}
            onChange={(jsonMode: ConfigDraft["jsonMode"]) => set({ jsonMode })}
          />
          {config.jsonMode === "exact-match" && (
            <TextField
              label="Expected JSON"
              path="config.expected"
              rows={4}
              value={config.expected}
              onChange={(expected) => set({ expected })}
            />
          )}
          {config.jsonMode === "schema" && (
            <TextField
              label="JSON Schema"
              path="config.schema"
              rows={6}
              value={config.schema}
              onChange={(schema) => set({ schema })}
            />
          )}
        </>
      );
    case "javascript":
      return (
        <>
          <TextField
            label="Code (body of a function of data)"
            path="config.code"
            rows={8}
            className="code"
            placeholder="return { grade: 'pass', score: 1, reason: 'ok' };"
            value={config.code}
            onChange={(code) => set({ code })}
          />
          <TextField
            label="Timeout (ms)"
            path="config.timeoutMs"
            value={config.timeoutMs}
            onChange={(timeoutMs) => set({ timeoutMs })}
            input={{ type: "number", min: 100, max: 30000 }}
          />
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
    case "response-length":
      return (
        <>
          {comparison}
          {threshold("Threshold")}
          <ChoiceField
            label="Unit"
            path="config.unit"
            value={config.type === "latency" ? config.latencyUnit : config.lengthUnit}
            options={config.type === "latency" ? LATENCY_UNITS : LENGTH_UNITS}
            onChange={(unit) =>
              set(
                config.type === "latency"
                  ? { latencyUnit: unit as ConfigDraft["latencyUnit"] }
                  : { lengthUnit: unit as ConfigDraft["lengthUnit"] },
              )
            }
          />
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
