import { useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate } from "@tanstack/react-router";
import { type FormEvent, useState } from "react";
import { $api, errorMessage } from "../api.ts";
import { formatTime } from "../format.ts";
import { useWorkspace } from "../layout.tsx";

/** The project's prompts; a full key may create one. */
export function PromptList() {
  const { projectId, canEdit } = useWorkspace();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const prompts = $api.useQuery("get", "/prompts", {
    params: { query: { projectId: projectId as string, limit: 200 } },
  });
  const create = $api.useMutation("post", "/prompts");
  const [title, setTitle] = useState("");

  async function submit(event: FormEvent) {
    event.preventDefault();
    const created = await create.mutateAsync({ body: { projectId: projectId as string, title: title.trim() } });
    await queryClient.invalidateQueries({ queryKey: ["get", "/prompts"] });
    await navigate({ to: "/prompts/$promptId", params: { promptId: created.id }, search: { project: projectId } });
  }

  return (
    <section aria-labelledby="prompts-title">
      <h1 id="prompts-title">Prompts</h1>
      {canEdit && (
        <form className="inline" onSubmit={submit} aria-label="New prompt">
          <label>
            Title <input value={title} onChange={(event) => setTitle(event.target.value)} required maxLength={200} />
          </label>
          <button type="submit" disabled={create.isPending || title.trim() === ""}>
            New prompt
          </button>
          {create.error && (
            <p role="alert" className="error">
              {errorMessage(create.error)}
            </p>
          )}
        </form>
      )}
      {prompts.isLoading && <p>Loading…</p>}
      <table className="grid">
        <thead>
          <tr>
            <th scope="col">Title</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {prompts.data?.prompts.map((prompt) => (
            <tr key={prompt.id}>
              <td>
                <Link to="/prompts/$promptId" params={{ promptId: prompt.id }} search={{ project: projectId }}>
                  {prompt.title || prompt.id}
                </Link>
              </td>
              <td>{formatTime(prompt.updatedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
