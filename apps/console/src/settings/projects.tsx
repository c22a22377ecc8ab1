import { Link } from "@tanstack/react-router";
import { type FormEvent, useState } from "react";
import { $api, type Schemas } from "../api.ts";
import { formatTime } from "../format.ts";
import { ErrorAlert, Grid, NameForm } from "../forms.tsx";
import { useWorkspace } from "../layout.tsx";
import { FieldError } from "./errors.tsx";
import { useRefresh } from "./kit.tsx";
import { useSettingsAccess } from "./settings.tsx";

type MaskingRule = Schemas["MaskingRule"];
const DETECTORS: readonly MaskingRule["detector"][] = ["email", "phone", "creditCard", "apiKey", "regex"];

/** The workspace's projects (an admin key creates them) and the current project's title, retention and masking. */
export function Projects() {
  const { projectId } = useWorkspace();
  const { isAdmin } = useSettingsAccess();
  const projects = $api.useQuery("get", "/projects", { params: { query: { limit: 200 } } });
  const create = $api.useMutation("post", "/projects");
  const refresh = useRefresh("/projects");
  const current = projects.data?.projects.find((project) => project.id === projectId);

  return (
    <>
      <h2>Projects</h2>
      <Grid label="Projects" columns={["Title", "Retention", "Masking rules", "Created"]}>
        {projects.data?.projects.map((project) => (
          <tr key={project.id}>
            <td>
              <Link
                to="/settings"
                search={{ project: project.id, section: "projects" }}
                aria-current={project.id === projectId ? "true" : undefined}
              >
                {project.title}
              </Link>
            </td>
            <td>{project.retentionDays === null ? "Forever" : `${project.retentionDays} days`}</td>
            <td>{project.maskingRules.length}</td>
            <td>{formatTime(project.createdAt)}</td>
          </tr>
        ))}
      </Grid>
      {isAdmin && (
        <NameForm
          form="New project"
          label="New project title"
          submit="Create project"
          maxLength={50}
          pending={create.isPending}
          error={create.error}
          onSubmit={(title, clear) =>
            create.mutate(
              { body: { title } },
              {
                onSuccess: () => {
                  clear();
                  void refresh();
                },
              },
            )
          }
        />
      )}
      {current && <ProjectSettings project={current} key={current.id} />}
    </>
  );
}

/** One project's title, retention and masking rules; each saved on its own so a refusal names one field. */
function ProjectSettings({ project }: { project: Schemas["Project"] }) {
  const { canEdit } = useSettingsAccess();
  const refresh = useRefresh("/projects");
  const update = $api.useMutation("patch", "/projects/{projectId}", { onSuccess: refresh });
  const [title, setTitle] = useState(project.title);
  const [retention, setRetention] = useState(project.retentionDays === null ? "" : String(project.retentionDays));
  const [rule, setRule] = useState<MaskingRule>({ detector: "email" });
  const [saved, setSaved] = useState("");

  // A refusal is shown next to its field, from update.error.
  function save(body: Schemas["UpdateProjectRequest"], done: string, then?: () => void) {
    setSaved("");
    update.mutate(
      { params: { path: { projectId: project.id } }, body },
      {
        onSuccess: () => {
          setSaved(done);
          then?.();
        },
      },
    );
  }
  const onSubmit = (action: () => void) => (event: FormEvent) => {
    event.preventDefault();
    action();
  };
  const error = update.error;
  const addRule = () =>
    save(
      {
        maskingRules: [
          ...project.maskingRules,
          {
            detector: rule.detector,
            ...(rule.detector === "regex" && { pattern: rule.pattern ?? "" }),
            ...(rule.placeholder && { placeholder: rule.placeholder }),
          },
        ],
      },
      "Masking rule added.",
      () => setRule({ detector: "email" }),
    );

  return (
    <section aria-labelledby="project-settings-title">
      <h2 id="project-settings-title">Project “{project.title}”</h2>
      {saved && (
        <p className="notice" role="status">
          {saved}
        </p>
      )}
      {!/^(title|retentionDays|maskingRules)/.test(errorField(error)) && <ErrorAlert error={error} />}
      <form
        className="inline"
        aria-label="Project title"
        onSubmit={onSubmit(() => save({ title }, "Project renamed."))}
      >
        <label>
          Title{" "}
          <input
            value={title}
            onChange={(event) => setTitle(event.target.value)}
            readOnly={!canEdit}
            aria-describedby="title-error"
          />
        </label>
        {canEdit && <button type="submit">Rename</button>}
        <FieldError id="title-error" error={error} field="title" />
      </form>
      <form
        className="inline"
        aria-label="Retention"
        onSubmit={onSubmit(() =>
          save({ retentionDays: retention.trim() === "" ? null : Number(retention) }, "Retention saved."),
        )}
      >
        <label>
          Retention (days, empty keeps logs forever){" "}
          <input
            inputMode="numeric"
            value={retention}
            onChange={(event) => setRetention(event.target.value)}
            readOnly={!canEdit}
            aria-describedby="retention-error"
          />
        </label>
        {canEdit && <button type="submit">Save retention</button>}
        <FieldError id="retention-error" error={error} field="retentionDays" />
      </form>
      <h3>Masking rules</h3>
      <p className="hint">Applied in this order to every log write before it is stored.</p>
      <ol aria-label="Masking rules" className="rules">
        {project.maskingRules.map((existing, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: rules have no id; their position is their identity
          <li key={index}>
            <code>{existing.detector === "regex" ? `regex ${existing.pattern}` : existing.detector}</code> →{" "}
            <code>{existing.placeholder}</code>{" "}
            {canEdit && (
              <button
                type="button"
                aria-label={`Remove masking rule ${index + 1}`}
                onClick={() =>
                  save({ maskingRules: project.maskingRules.filter((_, at) => at !== index) }, "Masking rule removed.")
                }
              >
                Remove
              </button>
            )}
          </li>
        ))}
        {project.maskingRules.length === 0 && <li>None: logs are stored as written.</li>}
      </ol>
      {canEdit && (
        <form className="inline" aria-label="New masking rule" onSubmit={onSubmit(addRule)}>
          <label>
            Detector{" "}
            <select
              value={rule.detector}
              onChange={(event) => setRule({ ...rule, detector: event.target.value as MaskingRule["detector"] })}
            >
              {DETECTORS.map((detector) => (
                <option key={detector}>{detector}</option>
              ))}
            </select>
          </label>
          {rule.detector === "regex" && (
            <label>
              Pattern{" "}
              <input
                value={rule.pattern ?? ""}
                onChange={(event) => setRule({ ...rule, pattern: event.target.value })}
                aria-describedby="masking-error"
              />
            </label>
          )}
          <label>
            Placeholder{" "}
            <input
              value={rule.placeholder ?? ""}
              placeholder="default"
              onChange={(event) => setRule({ ...rule, placeholder: event.target.value })}
            />
          </label>
          <button type="submit">Add rule</button>
          <FieldError id="masking-error" error={error} field="maskingRules" />
        </form>
      )}
    </section>
  );
}

/** The first field a 400 names, or "" (then the message is shown above the forms). */
function errorField(error: unknown): string {
  return (error as { error?: { details?: { field: string }[] } } | null)?.error?.details?.[0]?.field ?? "";
}
