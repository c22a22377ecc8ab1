import { type FormEvent, useState } from "react";
import { $api, type Schemas } from "../api.ts";
import { ErrorAlert, FormActions, Grid } from "../forms.tsx";
import { useWorkspace } from "../layout.tsx";
import { RowButton, useRefresh } from "./kit.tsx";
import { describeRule, ruleFromForm } from "./score-rules.ts";
import { ReadRefused, useSettingsAccess } from "./settings.tsx";

type ScoreRule = Schemas["ScoreRule"];

/** The project's score configs: which values each score name accepts. */
export function ScoreConfigs() {
  const { projectId } = useWorkspace();
  const { canEdit } = useSettingsAccess();
  const path = { projectId: projectId as string };
  const configs = $api.useQuery("get", "/projects/{projectId}/score-configs", {
    params: { path, query: { limit: 200 } },
  });
  const create = $api.useMutation("post", "/projects/{projectId}/score-configs");
  const remove = $api.useMutation("delete", "/projects/{projectId}/score-configs/{scoreConfigId}");
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [type, setType] = useState<ScoreRule["type"]>("numeric");
  const [min, setMin] = useState("");
  const [max, setMax] = useState("");
  const [categories, setCategories] = useState("");
  const refresh = useRefresh("/projects/{projectId}/score-configs");

  function submit(event: FormEvent) {
    event.preventDefault();
    const body = { name: name.trim(), description, rule: ruleFromForm(type, min, max, categories) };
    create.mutate(
      { params: { path }, body },
      {
        onSuccess: () => {
          setName("");
          setDescription("");
          void refresh();
        },
      },
    );
  }

  return (
    <>
      <h2>Score configs</h2>
      {configs.error && <ReadRefused what="score configs" error={configs.error} />}
      <Grid label="Score configs" columns={["Name", "Type", "Allowed values", "Description", canEdit && "Actions"]}>
        {configs.data?.scoreConfigs.map((config) => (
          <tr key={config.id}>
            <td>{config.name}</td>
            <td>{config.rule.type}</td>
            <td>{describeRule(config.rule)}</td>
            <td>{config.description}</td>
            {canEdit && (
              <td>
                <RowButton
                  action="Delete"
                  name={config.name}
                  onClick={() =>
                    remove.mutate({ params: { path: { ...path, scoreConfigId: config.id } } }, { onSuccess: refresh })
                  }
                />
              </td>
            )}
          </tr>
        ))}
      </Grid>
      <ErrorAlert error={remove.error} />
      {canEdit && (
        <form className="stacked" onSubmit={submit} aria-label="New score config">
          <h3>New score config</h3>
          <label>
            Score name <input value={name} onChange={(event) => setName(event.target.value)} required />
          </label>
          <label>
            Description <input value={description} onChange={(event) => setDescription(event.target.value)} />
          </label>
          <label>
            Type{" "}
            <select value={type} onChange={(event) => setType(event.target.value as ScoreRule["type"])}>
              <option>numeric</option>
              <option>categorical</option>
              <option>boolean</option>
            </select>
          </label>
          {type === "numeric" && (
            <>
              <label>
                Minimum <input inputMode="decimal" value={min} onChange={(event) => setMin(event.target.value)} />
              </label>
              <label>
                Maximum <input inputMode="decimal" value={max} onChange={(event) => setMax(event.target.value)} />
              </label>
            </>
          )}
          {type === "categorical" && (
            <label>
              Categories (comma-separated){" "}
              <input value={categories} onChange={(event) => setCategories(event.target.value)} required />
            </label>
          )}
          <FormActions submit="Add score config" disabled={create.isPending || name.trim() === ""} />
          <ErrorAlert error={create.error} />
        </form>
      )}
    </>
  );
}
