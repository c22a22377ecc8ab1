import type { schemas } from "@pharos/contract";
import { mayAccessProject } from "../../auth/principal.ts";
import { type ApiError, forbidden, notFound } from "../../errors.ts";
import type { Database } from "../../store/schema.ts";
import type { ServiceContext } from "../context.ts";
import { fromJson } from "../json.ts";
import { type MaskingRule, withPlaceholders } from "../masking/masking-rules.ts";

export type Project = schemas.Project;
export type Icon = schemas.Icon;

export const DEFAULT_PROJECT_ICON: Icon = { type: "emoji", value: "📁" };

export function toProject(row: Database["projects"]): Project {
  return {
    id: row.id,
    title: row.title,
    icon: fromJson<Icon>(row.icon),
    maskingRules: withPlaceholders(fromJson<MaskingRule[]>(row.maskingRules)),
    retentionDays: row.retentionDays,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/**
 * Whether the caller may use `project`: a project of another workspace (or none) is missing, 404, so that
 * other workspaces' ids cannot be told from unknown ones; a project outside the key's restriction is 403.
 */
export function projectAccessFailure(
  ctx: ServiceContext,
  project: { id: string; workspaceId: string } | undefined,
): ApiError | undefined {
  if (project?.workspaceId !== ctx.principal.workspaceId) return notFound("Project");
  return mayAccessProject(ctx.principal, project.id) ? undefined : restrictedProject();
}

const restrictedProject = () => forbidden("This API key is restricted to other projects.");

/** 403 when the key may not use the project of a record found in the caller's workspace. */
export function assertProjectAccess(ctx: ServiceContext, projectId: string): void {
  if (!mayAccessProject(ctx.principal, projectId)) throw restrictedProject();
}

/** The project row, if the caller may use it (see projectAccessFailure). */
export async function requireProject(ctx: ServiceContext, projectId: string) {
  const project = await ctx.db
    .selectFrom("projects")
    .selectAll()
    .where("id", "=", projectId)
    .where("workspaceId", "=", ctx.principal.workspaceId)
    .executeTakeFirst();
  const failure = projectAccessFailure(ctx, project);
  if (failure) throw failure;
  return project as Database["projects"];
}
