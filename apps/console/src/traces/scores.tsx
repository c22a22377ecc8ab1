import { useQuery } from "@tanstack/react-query";
import { errorMessage, fetchClient, type Schemas } from "../api.ts";
import { formatTime } from "../format.ts";
import { useWorkspace } from "../layout.tsx";

type Score = Schemas["Score"];

/** Every score of a trace (on the trace itself and on its spans), newest first, page after page. */
async function traceScores(projectId: string, traceId: string): Promise<Score[]> {
  const scores: Score[] = [];
  let cursor: string | undefined;
  do {
    const reply = await fetchClient.POST("/projects/{projectId}/scores/search", {
      params: { path: { projectId } },
      body: { traceId, limit: 200, ...(cursor && { cursor }) },
    });
    if (!reply.data) throw new Error(errorMessage(reply.error));
    scores.push(...reply.data.scores);
    cursor = reply.data.pagination.nextCursor ?? undefined;
  } while (cursor);
  return scores;
}

/**
 * The scores on a trace as a whole (no `spanId`) or on one of its spans: name, value, source and comment. One
 * query per trace serves the trace and every span.
 */
export function Scores({ traceId, spanId }: { traceId: string; spanId?: string }) {
  const { projectId } = useWorkspace();
  const scores = useQuery({
    queryKey: ["traceScores", projectId, traceId],
    queryFn: () => traceScores(projectId as string, traceId),
  });
  const own = scores.data?.filter((score) => score.spanId === (spanId ?? null)) ?? [];
  const label = spanId ? "Span scores" : "Trace scores";
  if (scores.error) {
    return (
      <p role="alert" className="error">
        Scores: {scores.error.message}
      </p>
    );
  }
  if (own.length === 0) return null;
  return (
    <>
      <h3>{label}</h3>
      <table className="grid scores" aria-label={label}>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Value</th>
            <th scope="col">Source</th>
            <th scope="col">Comment</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {own.map((score) => (
            <tr key={score.id}>
              <td>{score.name}</td>
              <td>{String(score.value)}</td>
              <td>{score.source}</td>
              <td>{score.comment ?? ""}</td>
              <td>{formatTime(score.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
