import { useQueryClient } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { $api } from "../api.ts";
import { NameForm } from "../forms.tsx";
import { useWorkspace } from "../layout.tsx";
import { PromptTable } from "./prompt-table.tsx";

/** The project's prompts; a full key may create one. */
export function PromptList() {
  const { projectId, canEdit } = useWorkspace();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const create = $api.useMutation("post", "/prompts");

  async function createPrompt(title: string) {
    const created = await create.mutateAsync({ body: { projectId: projectId as string, title } });
    await queryClient.invalidateQueries({ queryKey: ["get", "/prompts"] });
    await navigate({ to: "/prompts/$promptId", params: { promptId: created.id }, search: { project: projectId } });
  }

  return (
    <section aria-labelledby="prompts-title">
      <h1 id="prompts-title">Prompts</h1>
      {canEdit && (
        <NameForm
          form="New prompt"
          label="Title"
          submit="New prompt"
          maxLength={200}
          pending={create.isPending}
          error={create.error}
          // A refusal is shown from the mutation's error, under the form.
          onSubmit={(title) => void createPrompt(title).catch(() => undefined)}
        />
      )}
      <PromptTable label="Prompts" heading="Title" to="/prompts/$promptId" />
    </section>
  );
}
