import { Link } from "@tanstack/react-router";
import { $api } from "../api.ts";
import { formatTime } from "../format.ts";
import { Grid } from "../forms.tsx";
import { useWorkspace } from "../layout.tsx";

/** The project's prompts, each a link to `to` (its editor, or its evaluations), with when it last changed. */
export function PromptTable({
  label,
  heading,
  to,
  empty,
}: {
  label: string;
  heading: string;
  to: "/prompts/$promptId" | "/evaluations/$promptId";
  empty?: string;
}) {
  const { projectId } = useWorkspace();
  const prompts = $api.useQuery("get", "/prompts", {
    params: { query: { projectId: projectId as string, limit: 200 } },
  });
  return (
    <>
      {prompts.isLoading && <p>Loading…</p>}
      <Grid label={label} columns={[heading, "Updated"]}>
        {prompts.data?.prompts.map((prompt) => (
          <tr key={prompt.id}>
            <td>
              <Link to={to} params={{ promptId: prompt.id }} search={{ project: projectId }}>
                {prompt.title || prompt.id}
              </Link>
            </td>
            <td>{formatTime(prompt.updatedAt)}</td>
          </tr>
        ))}
      </Grid>
      {empty && prompts.data?.prompts.length === 0 && <p>{empty}</p>}
    </>
  );
}
