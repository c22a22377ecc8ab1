import { useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate } from "@tanstack/react-router";
import { useEffect, useState } from "react";
import { $api, errorMessage, fetchClient, type Schemas } from "../api.ts";
import { formatTime } from "../format.ts";
import { useWorkspace } from "../layout.tsx";
import { promptRoute } from "../router.tsx";
import { diffVersions, draftVersion, snapshotVersion, type Version } from "./diff.ts";
import { checkTools, MessageEditor, ToolsEditor } from "./editors.tsx";
import { Playground } from "./playground.tsx";

type Message = Schemas["PromptMessage"];
const ROLES: readonly Message["role"][] = ["system", "user", "assistant", "tool"];
const PROVIDERS = ["openai", "anthropic", "openai-compatible"] as const;

/** The text of a message's first text part (what the editor edits; other parts are kept as they are). */
const textOf = (message: Message) => message.content.find((part) => part.modality === "text")?.value ?? "";
function withText(message: Message, value: string): Message {
  const index = message.content.findIndex((part) => part.modality === "text");
  const content = [...message.content];
  if (index >= 0) content[index] = { modality: "text", value };
  else content.unshift({ modality: "text", value });
  return { ...message, content };
}

/** A prompt: its draft (messages, model), deploying it, its deployment history, diff and rollback. */
export function PromptEditor() {
  const { projectId, canEdit } = useWorkspace();
  const { promptId } = promptRoute.useParams();
  const queryClient = useQueryClient();
  const prompt = $api.useQuery("get", "/prompts/{promptId}", { params: { path: { promptId } } });
  const [messages, setMessages] = useState<Message[]>([]);
  const [config, setConfig] = useState<Schemas["PromptConfig"] | null>(null);
  const [tools, setTools] = useState<Schemas["PromptTool"][]>([]);
  const [toolsText, setToolsText] = useState("[]");
  const [toolsProblems, setToolsProblems] = useState<string[]>([]);
  const [notice, setNotice] = useState<string | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  // Without `fields`, getPrompt answers the whole Prompt, draft included.
  const saved = prompt.data?.draft;
  useEffect(() => {
    if (saved) {
      setMessages(saved.messages);
      setConfig(saved.config);
      setTools(saved.tools);
      setToolsText(JSON.stringify(saved.tools, null, 2));
      setToolsProblems([]);
    }
  }, [saved]);

  const models = $api.useQuery("get", "/models");
  const save = $api.useMutation("patch", "/prompts/{promptId}");

  async function editTools(text: string) {
    setToolsText(text);
    const problems = await checkTools(text);
    setToolsProblems(problems);
    if (problems.length === 0) setTools(JSON.parse(text));
  }

  async function saveDraft() {
    if (!config) return;
    setFailure(null);
    try {
      await save.mutateAsync({
        params: { path: { promptId } },
        body: {
          messages,
          tools,
          config: { provider: config.provider, model: config.model, settings: config.settings },
        },
      });
      await queryClient.invalidateQueries({ queryKey: ["get", "/prompts/{promptId}"] });
      setNotice("Draft saved.");
    } catch (error) {
      setFailure(errorMessage(error));
    }
  }

  if (prompt.error) {
    return (
      <p role="alert" className="error">
        {errorMessage(prompt.error)}
      </p>
    );
  }
  if (!prompt.data || !saved || !config) return <p>Loading…</p>;
  const unsaved =
    JSON.stringify(messages) !== JSON.stringify(saved.messages) ||
    toolsText !== JSON.stringify(saved.tools, null, 2) ||
    JSON.stringify(config) !== JSON.stringify(saved.config);

  return (
    <section aria-labelledby="prompt-title" className="prompt">
      <p>
        <Link to="/prompts" search={{ project: projectId }}>
          ← Prompts
        </Link>{" "}
        ·{" "}
        <Link to="/evaluations/$promptId" params={{ promptId }} search={{ project: projectId }}>
          Evaluations of this prompt
        </Link>
      </p>
      <h1 id="prompt-title">{prompt.data.title}</h1>
      <div aria-live="polite">
        {notice && <p className="notice">{notice}</p>}
        {failure && (
          <p role="alert" className="error">
            {failure}
          </p>
        )}
      </div>
      <h2>Draft</h2>
      <fieldset className="config" disabled={!canEdit}>
        <legend>Model</legend>
        <label>
          Provider{" "}
          <select
            value={config.provider ?? ""}
            onChange={(event) => setConfig({ ...config, provider: event.target.value || null })}
          >
            <option value="">(none)</option>
            {PROVIDERS.map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </label>
        <label>
          Model{" "}
          <input
            list="models"
            value={config.model ?? ""}
            onChange={(event) => setConfig({ ...config, model: event.target.value || null })}
          />
          <datalist id="models">
            {models.data?.models
              .filter((model) => !config.provider || model.provider === config.provider)
              .map((model) => (
                <option key={model.id} value={model.model} />
              ))}
          </datalist>
        </label>
        <label>
          Temperature{" "}
          <input
            type="number"
            min={0}
            max={2}
            step={0.1}
            value={config.settings.temperature ?? ""}
            onChange={(event) => {
              const { temperature: _old, ...rest } = config.settings;
              const value = event.target.value === "" ? undefined : Number(event.target.value);
              setConfig({ ...config, settings: value === undefined ? rest : { ...rest, temperature: value } });
            }}
          />
        </label>
      </fieldset>
      <ol className="message-editor" aria-label="Messages">
        {messages.map((message, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a message's place is its identity in the draft
          <li key={index} className={`message role-${message.role}`}>
            <div className="message-head">
              <label>
                Role{" "}
                <select
                  disabled={!canEdit}
                  value={message.role}
                  onChange={(event) =>
                    setMessages(
                      messages.map((m, i) => (i === index ? { ...m, role: event.target.value as Message["role"] } : m)),
                    )
                  }
                >
                  {ROLES.map((role) => (
                    <option key={role}>{role}</option>
                  ))}
                </select>
              </label>
              {canEdit && (
                <button type="button" onClick={() => setMessages(messages.filter((_, i) => i !== index))}>
                  Remove message {index + 1}
                </button>
              )}
            </div>
            <MessageEditor
              label={`Message ${index + 1} text`}
              readOnly={!canEdit}
              value={textOf(message)}
              onChange={(value) => setMessages(messages.map((m, i) => (i === index ? withText(m, value) : m)))}
            />
          </li>
        ))}
      </ol>
      <h3 id="tools-title">Tools</h3>
      <ToolsEditor label="Tools (JSON)" readOnly={!canEdit} value={toolsText} onChange={editTools} />
      {toolsProblems.length > 0 && (
        <ul className="error tool-problems" aria-label="Tools problems">
          {toolsProblems.map((problem) => (
            <li key={problem}>{problem}</li>
          ))}
        </ul>
      )}
      {canEdit && (
        <div className="actions">
          <button
            type="button"
            onClick={() => setMessages([...messages, { role: "user", content: [{ modality: "text", value: "" }] }])}
          >
            Add message
          </button>
          <button type="button" onClick={saveDraft} disabled={save.isPending || !unsaved || toolsProblems.length > 0}>
            Save draft
          </button>
          {unsaved && <span className="hint">Unsaved changes</span>}
        </div>
      )}
      <Playground
        promptId={promptId}
        projectId={projectId as string}
        variables={Object.keys(saved.variables)}
        blocked={!canEdit ? "A read-only key cannot run prompts." : unsaved ? "Save the draft to run it." : null}
      />
      <Deployments
        promptId={promptId}
        projectId={projectId as string}
        canEdit={canEdit && !unsaved}
        draft={draftVersion(saved)}
        onNotice={(text) => {
          setFailure(null);
          setNotice(text);
        }}
        onFailure={setFailure}
      />
    </section>
  );
}

interface DeploymentsProps {
  promptId: string;
  projectId: string;
  canEdit: boolean;
  draft: Version;
  onNotice: (text: string) => void;
  onFailure: (text: string) => void;
}

/** Deploying the draft, the history per environment, a diff of any two versions, and rollback. */
function Deployments({ promptId, projectId, canEdit, draft, onNotice, onFailure }: DeploymentsProps) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const search = promptRoute.useSearch();
  const environments = $api.useQuery("get", "/projects/{projectId}/deployment-environments", {
    params: { path: { projectId }, query: { limit: 200 } },
  });
  const deployments = $api.useQuery("get", "/prompts/{promptId}/deployments", {
    params: { path: { promptId }, query: { limit: 200 } },
  });
  const [environmentId, setEnvironmentId] = useState("");
  const [newEnvironment, setNewEnvironment] = useState("");
  const environmentList = environments.data?.deploymentEnvironments ?? [];
  const chosen = environmentId || environmentList[0]?.id || "";
  const nameOf = (id: string) => environmentList.find((environment) => environment.id === id)?.name ?? id;
  const history = deployments.data?.deployments ?? [];

  async function refresh() {
    await queryClient.invalidateQueries({ queryKey: ["get", "/prompts/{promptId}/deployments"] });
    await queryClient.invalidateQueries({ queryKey: ["get", "/prompts/{promptId}"] });
  }

  async function deploy(deploymentEnvironmentId: string) {
    const reply = await fetchClient.POST("/prompts/{promptId}/deployments", {
      params: { path: { promptId } },
      body: { deploymentEnvironmentId },
    });
    if (!reply.data) throw new Error(errorMessage(reply.error));
    return reply.data;
  }

  async function deployDraft() {
    try {
      await deploy(chosen);
      await refresh();
      onNotice(`Deployed the draft to ${nameOf(chosen)}.`);
    } catch (error) {
      onFailure((error as Error).message);
    }
  }

  async function createEnvironment() {
    const reply = await fetchClient.POST("/projects/{projectId}/deployment-environments", {
      params: { path: { projectId } },
      body: { name: newEnvironment.trim() },
    });
    if (!reply.data) return onFailure(errorMessage(reply.error));
    setNewEnvironment("");
    setEnvironmentId(reply.data.id);
    await queryClient.invalidateQueries({ queryKey: ["get", "/projects/{projectId}/deployment-environments"] });
  }

  /** Deploys an earlier snapshot again to its environment; the draft is left as it is. */
  async function rollBack(deployment: Schemas["Deployment"]) {
    const reply = await fetchClient.POST("/prompts/{promptId}/deployments", {
      params: { path: { promptId } },
      body: { deploymentEnvironmentId: deployment.deploymentEnvironmentId, sourceDeploymentId: deployment.id },
    });
    if (!reply.data) return onFailure(errorMessage(reply.error));
    await refresh();
    onNotice(
      `Rolled ${nameOf(deployment.deploymentEnvironmentId)} back to the version of ${formatTime(deployment.createdAt)}.`,
    );
  }

  const versionOf = (id: string | undefined): Version | undefined => {
    if (id === undefined || id === "draft") return draft;
    const deployment = history.find((d) => d.id === id);
    return deployment && snapshotVersion(deployment.prompt);
  };
  const from = search.from ?? history[0]?.id;
  const to = search.to ?? "draft";
  const before = versionOf(from);
  const after = versionOf(to);
  const setDiff = (next: { from?: string; to?: string }) =>
    void navigate({
      to: "/prompts/$promptId",
      params: { promptId },
      search: { project: projectId, from, to, ...next },
      replace: true,
    });
  const label = (d: Schemas["Deployment"]) => `${nameOf(d.deploymentEnvironmentId)} · ${formatTime(d.createdAt)}`;

  return (
    <>
      <h2>Deploy</h2>
      {canEdit ? (
        <div className="actions">
          <label htmlFor="environment">Environment</label>
          <select id="environment" value={chosen} onChange={(event) => setEnvironmentId(event.target.value)}>
            {environmentList.map((environment) => (
              <option key={environment.id} value={environment.id}>
                {environment.name}
              </option>
            ))}
          </select>
          <button type="button" onClick={deployDraft} disabled={!chosen}>
            Deploy draft
          </button>
          <label>
            New environment{" "}
            <input value={newEnvironment} onChange={(event) => setNewEnvironment(event.target.value)} maxLength={100} />
          </label>
          <button type="button" onClick={createEnvironment} disabled={newEnvironment.trim() === ""}>
            Create environment
          </button>
        </div>
      ) : (
        <p className="hint">Save the draft to deploy it; a read-only key cannot deploy.</p>
      )}
      <h2>History</h2>
      <table className="grid" aria-label="Deployment history">
        <thead>
          <tr>
            <th scope="col">Environment</th>
            <th scope="col">Deployed</th>
            <th scope="col">Model</th>
            {canEdit && <th scope="col">Rollback</th>}
          </tr>
        </thead>
        <tbody>
          {history.map((deployment, index) => (
            <tr key={deployment.id}>
              <td>{nameOf(deployment.deploymentEnvironmentId)}</td>
              <td>{formatTime(deployment.createdAt)}</td>
              <td>{deployment.prompt.config.model ?? ""}</td>
              {canEdit && (
                <td>
                  {index > 0 && (
                    <button type="button" onClick={() => rollBack(deployment)}>
                      Roll back to {formatTime(deployment.createdAt)}
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {history.length === 0 && <p>Not deployed yet.</p>}
      <h2 id="compare-title">Compare</h2>
      <div className="actions">
        <label>
          From{" "}
          <select value={from ?? "draft"} onChange={(event) => setDiff({ from: event.target.value })}>
            <option value="draft">Draft</option>
            {history.map((d) => (
              <option key={d.id} value={d.id}>
                {label(d)}
              </option>
            ))}
          </select>
        </label>
        <label>
          To{" "}
          <select value={to} onChange={(event) => setDiff({ to: event.target.value })}>
            <option value="draft">Draft</option>
            {history.map((d) => (
              <option key={d.id} value={d.id}>
                {label(d)}
              </option>
            ))}
          </select>
        </label>
      </div>
      {before && after && (
        <pre className="diff">
          {diffVersions(before, after).map((line, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: lines of one diff, recomputed as a whole
            <span key={index} className={`line ${line.kind}`}>
              {line.kind === "added" ? "+ " : line.kind === "removed" ? "- " : "  "}
              {line.text}
            </span>
          ))}
        </pre>
      )}
    </>
  );
}
