import type { OperationId } from "@pharos/contract";
import type { Role } from "./roles.ts";

/** Who is calling: the workspace of the API key, its role and the projects it is restricted to. */
export interface Principal {
  workspaceId: string;
  keyId: string;
  role: Role;
  /** null: every project of the workspace. */
  projectIds: readonly string[] | null;
}

/**
 * What an operation needs. `workspace-write` changes workspace-level records and needs a full key that is not
 * restricted to some projects. `own-key` reads the calling key itself, which every key may.
 */
type Access = "read" | "write" | "ingest" | "deployment-read" | "workspace-write" | "own-key";

const ACCESS = {
  // Keys hold the workspace's access: admin keys only (full, every project).
  listApiKeys: "workspace-write",
  createApiKey: "workspace-write",
  deleteApiKey: "workspace-write",
  listProjects: "read",
  createProject: "workspace-write",
  getProject: "read",
  updateProject: "write",
  listDeploymentEnvironments: "read",
  createDeploymentEnvironment: "write",
  deleteDeploymentEnvironment: "write",
  listSessions: "read",
  listSessionTraces: "read",
  listUsers: "read",
  // Webhook endpoints hold a signing secret and custom headers and send the project's events out: full keys only.
  listWebhooks: "write",
  createWebhook: "write",
  getWebhook: "write",
  updateWebhook: "write",
  deleteWebhook: "write",
  rotateWebhookSecret: "write",
  sendWebhookTestEvent: "write",
  listWebhookDeliveries: "write",
  listPrompts: "read",
  createPrompt: "write",
  getPrompt: "read",
  updatePrompt: "write",
  deletePrompt: "write",
  getPromptDraft: "read",
  // A run spends the workspace's provider credits and writes a trace: the keys that may edit the prompt.
  runPrompt: "write",
  getDeployment: "deployment-read",
  listDeployments: "read",
  createDeployment: "write",
  listEvaluators: "read",
  createEvaluator: "write",
  getEvaluator: "read",
  updateEvaluator: "write",
  deleteEvaluator: "write",
  getEvaluatorOnlineStats: "read",
  createEvaluation: "write",
  listEvaluations: "read",
  getEvaluation: "read",
  cancelEvaluation: "write",
  listEvaluationResults: "read",
  compareEvaluations: "read",
  listDatasets: "read",
  createDataset: "write",
  getDataset: "read",
  updateDataset: "write",
  deleteDataset: "write",
  createDatasetColumns: "write",
  updateDatasetColumn: "write",
  deleteDatasetColumn: "write",
  listDatasetRows: "read",
  createDatasetRows: "write",
  createDatasetRowsFromSpans: "write",
  updateDatasetRow: "write",
  deleteDatasetRow: "write",
  fetchDynamicColumns: "write",
  createLogTrace: "ingest",
  updateLogTrace: "ingest",
  createLogSpan: "ingest",
  exportOtelTraces: "ingest",
  searchLogTraces: "read",
  exportLogTraces: "read",
  searchLogSpans: "read",
  exportLogSpans: "read",
  getLogTraceTree: "read",
  getLogSpan: "read",
  searchLogMetrics: "read",
  // An application sends its users' feedback with the key it logs with; deleting a score is a correction.
  searchScores: "read",
  createScores: "ingest",
  deleteScore: "write",
  listScoreConfigs: "read",
  createScoreConfig: "write",
  getScoreConfig: "read",
  updateScoreConfig: "write",
  deleteScoreConfig: "write",
  listProviders: "read",
  createProvider: "workspace-write",
  getProvider: "read",
  updateProvider: "workspace-write",
  deleteProvider: "workspace-write",
  listModels: "read",
  getCurrentApiKey: "own-key",
} as const satisfies Record<OperationId, Access>;

const ROLE_GRANTS: Record<Role, readonly Access[]> = {
  full: ["read", "write", "ingest", "deployment-read", "workspace-write", "own-key"],
  "read-only": ["read", "deployment-read", "own-key"],
  // What an application embeds: write its logs and read its deployed prompts.
  "ingest-only": ["ingest", "deployment-read", "own-key"],
};

export function mayPerform(principal: Principal, operationId: OperationId): boolean {
  const access: Access = ACCESS[operationId];
  if (!ROLE_GRANTS[principal.role].includes(access)) return false;
  return access !== "workspace-write" || principal.projectIds === null;
}

export const mayAccessProject = (principal: Principal, projectId: string) =>
  principal.projectIds === null || principal.projectIds.includes(projectId);
