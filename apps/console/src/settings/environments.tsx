import { $api } from "../api.ts";
import { formatTime } from "../format.ts";
import { ErrorAlert, Grid, NameForm } from "../forms.tsx";
import { useWorkspace } from "../layout.tsx";
import { RowButton, useRefresh } from "./kit.tsx";
import { ReadRefused, useSettingsAccess } from "./settings.tsx";

/**
 * The project's deployment environments. The API refuses to delete one that holds deployments (they are the
 * record of what ran), and the console shows its message.
 */
export function Environments() {
  const { projectId } = useWorkspace();
  const { canEdit } = useSettingsAccess();
  const path = { projectId: projectId as string };
  const environments = $api.useQuery("get", "/projects/{projectId}/deployment-environments", {
    params: { path, query: { limit: 200 } },
  });
  const create = $api.useMutation("post", "/projects/{projectId}/deployment-environments");
  const remove = $api.useMutation("delete", "/projects/{projectId}/deployment-environments/{environmentId}");
  const refresh = useRefresh("/projects/{projectId}/deployment-environments");

  return (
    <>
      <h2>Deployment environments</h2>
      {environments.error && <ReadRefused what="environments" error={environments.error} />}
      <Grid label="Environments" columns={["Name", "Created", canEdit && "Actions"]}>
        {environments.data?.deploymentEnvironments.map((environment) => (
          <tr key={environment.id}>
            <td>{environment.name}</td>
            <td>{formatTime(environment.createdAt)}</td>
            {canEdit && (
              <td>
                <RowButton
                  action="Delete"
                  name={environment.name}
                  onClick={() =>
                    remove.mutate(
                      { params: { path: { ...path, environmentId: environment.id } } },
                      { onSuccess: refresh },
                    )
                  }
                />
              </td>
            )}
          </tr>
        ))}
      </Grid>
      <ErrorAlert error={remove.error} />
      {canEdit && (
        <NameForm
          form="New environment"
          label="Environment name"
          submit="Add environment"
          maxLength={50}
          pending={create.isPending}
          error={create.error}
          onSubmit={(name, clear) =>
            create.mutate(
              { params: { path }, body: { name } },
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
    </>
  );
}
