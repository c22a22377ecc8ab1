import type { schemas } from "@pharos/contract";
import { notFound } from "../../errors.ts";
import type { Database } from "../../store/schema.ts";
import type { ServiceContext } from "../context.ts";

export type DeploymentEnvironment = schemas.DeploymentEnvironment;

export function toDeploymentEnvironment(row: Database["deploymentEnvironments"]): DeploymentEnvironment {
  return {
    id: row.id,
    projectId: row.projectId,
    name: row.name,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** The deployment environment `environmentId` of the project, or 404; `forUpdate` locks its row until the transaction ends. */
export async function requireEnvironmentOfProject(
  ctx: ServiceContext,
  projectId: string,
  environmentId: string,
  options: { forUpdate?: boolean } = {},
) {
  const select = ctx.db
    .selectFrom("deploymentEnvironments")
    .selectAll()
    .where("id", "=", environmentId)
    .where("projectId", "=", projectId);
  const environment = await (options.forUpdate ? ctx.store.sql.locks.forUpdate(select) : select).executeTakeFirst();
  if (!environment) throw notFound("Deployment environment");
  return environment;
}
