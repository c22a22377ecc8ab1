import { notFound } from "../../errors.ts";
import type { ServiceContext } from "../context.ts";

/** The deployment environment `environmentId` of the prompt's project, or 404. */
export async function requireEnvironmentOfProject(ctx: ServiceContext, projectId: string, environmentId: string) {
  const environment = await ctx.db
    .selectFrom("deploymentEnvironments")
    .selectAll()
    .where("id", "=", environmentId)
    .where("projectId", "=", projectId)
    .executeTakeFirst();
  if (!environment) throw notFound("Deployment environment");
  return environment;
}
