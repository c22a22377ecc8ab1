import type { ServiceContext } from "../context.ts";
import { createdWithin } from "../created-range.ts";
import type { BodyOf, PathOf } from "../operation-input.ts";
import { paginate } from "../pagination.ts";
import { requireProject } from "../projects/project.ts";
import { toScore } from "./score.ts";

/**
 * One page of the project's scores matching every condition given, newest first unless `sort` says otherwise.
 * A value range reads `numberValue`, which categories leave null: they drop out of it.
 */
export async function searchScores(
  ctx: ServiceContext,
  { projectId }: PathOf<"searchScores">,
  body: BodyOf<"searchScores">,
) {
  const { traceId, spanId, name, source, createdAfter, createdBefore, minValue, maxValue, ...page } = body;
  await requireProject(ctx, projectId);
  let select = ctx.db
    .selectFrom("scores")
    .selectAll()
    .where("projectId", "=", projectId)
    .where(createdWithin("scores", { createdAfter, createdBefore }));
  if (traceId !== undefined) select = select.where("traceId", "=", traceId);
  if (spanId !== undefined) select = select.where("spanId", "=", spanId);
  if (name !== undefined) select = select.where("name", "=", name);
  if (source !== undefined) select = select.where("source", "=", source);
  if (minValue !== undefined) select = select.where("numberValue", ">=", minValue);
  if (maxValue !== undefined) select = select.where("numberValue", "<=", maxValue);
  return paginate(ctx, {
    operation: "searchScores",
    filters: { projectId, traceId, spanId, name, source, createdAfter, createdBefore, minValue, maxValue },
    page,
    table: "scores",
    select,
    toItem: toScore,
  });
}
