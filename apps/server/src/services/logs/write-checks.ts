/**
 * The checks of log writes that run before a write joins a batch, in the order of the spec's precedence:
 * every 400 of the request (listed together in `details`), then 413 (content over 1 MB), then 404 (project,
 * prompts, deployments, trace), then 409 (found at write time). 403 for a project outside the key's
 * restriction comes with the project's 404, after the request was found valid.
 */
import { type ApiError, type ErrorDetail, notFound, tooLarge } from "../../errors.ts";
import type { ServiceContext } from "../context.ts";
import { type Masker, maskerOf } from "../masking/masking-rules.ts";
import { projectAccessFailure } from "../projects/project.ts";
import { MAX_CONTENT_BYTES } from "./span-content.ts";

export const contentTooLarge = (field: string) => tooLarge(`${field}: span content`, MAX_CONTENT_BYTES);

/** The prompt and deployment a span names, and where its fields are in the request. */
export interface SpanReferences {
  /** Path of the span in the request, e.g. `spans.3` or `span`. */
  field: string;
  promptId?: string;
  deploymentId?: string;
}

export interface WriteTarget {
  /** The project, when it exists in the workspace and the key may use it. */
  projectId: string | undefined;
  /** The project's masking rules, which the write applies before storing anything; undefined when none. */
  masker?: Masker | undefined;
  /** 400s found in the database: a deployment of another prompt than the span's. */
  issues: ErrorDetail[];
  /** The 403/404 to answer once the request is known to be valid and not too large. */
  failure: ApiError | undefined;
}

/**
 * Resolves the project and the prompts and deployments the spans name, without throwing: the caller
 * answers in precedence order. Prompts and deployments must be of the project.
 */
export async function resolveWriteTarget(
  ctx: ServiceContext,
  projectId: string,
  spans: readonly SpanReferences[],
): Promise<WriteTarget> {
  // Every log write names its project: read from the cache, and judged here for the caller's workspace.
  const project = await ctx.cache.get(JSON.stringify(["project", projectId]), () =>
    ctx.db
      .selectFrom("projects")
      .select(["id", "workspaceId", "maskingRules"])
      .where("id", "=", projectId)
      .executeTakeFirst(),
  );
  const refused = projectAccessFailure(ctx, project);
  if (refused || project === undefined) return { projectId: undefined, issues: [], failure: refused };

  const promptIds = [...new Set(spans.flatMap((span) => (span.promptId ? [span.promptId] : [])))];
  const deploymentIds = [...new Set(spans.flatMap((span) => (span.deploymentId ? [span.deploymentId] : [])))];
  const prompts =
    promptIds.length === 0
      ? new Set<string>()
      : new Set(
          (
            await ctx.db
              .selectFrom("prompts")
              .select("id")
              .where("projectId", "=", project.id)
              .where("id", "in", promptIds)
              .execute()
          ).map((row) => row.id),
        );
  const deployments =
    deploymentIds.length === 0
      ? new Map<string, string>()
      : new Map(
          (
            await ctx.db
              .selectFrom("deployments")
              .select(["id", "promptId"])
              .where("projectId", "=", project.id)
              .where("id", "in", deploymentIds)
              .execute()
          ).map((row) => [row.id, row.promptId]),
        );

  const issues: ErrorDetail[] = [];
  let failure: ApiError | undefined;
  for (const span of spans) {
    if (span.promptId !== undefined && !prompts.has(span.promptId)) failure ??= notFound("Prompt");
    if (span.deploymentId === undefined) continue;
    const deployedPrompt = deployments.get(span.deploymentId);
    if (deployedPrompt === undefined) failure ??= notFound("Deployment");
    else if (span.promptId !== undefined && deployedPrompt !== span.promptId) {
      issues.push({ field: `${span.field}.deploymentId`, issue: "must be a deployment of the span's promptId" });
    }
  }
  return { projectId: project.id, masker: maskerOf(project.maskingRules), issues, failure };
}
