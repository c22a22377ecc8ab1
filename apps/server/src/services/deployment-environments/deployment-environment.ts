import type { schemas } from "@pharos/contract";
import type { Database } from "../../store/schema.ts";

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
