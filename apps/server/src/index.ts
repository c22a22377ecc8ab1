/** What other packages (the conformance kit, the benchmark, tests) use of the server; test doubles: `./testing`. */
export { type AppOptions, createApp } from "./app.ts";
export { DEFAULT_EVALUATION_CONFIG } from "./config.ts";
export { createIdGenerator } from "./ids.ts";
export { routeDefinitions } from "./routes/index.ts";
export { createSecretBox } from "./secrets/secret-box.ts";
export {
  type AdminContext,
  adminContext,
  createApiKey,
  createProjectForWorkspace,
  createWorkspace,
} from "./services/admin/workspaces.ts";
export { openStore } from "./store/open-store.ts";
export { openPostgresStore } from "./store/postgres.ts";
export { openSqliteStore } from "./store/sqlite.ts";
export type { Store } from "./store/store.ts";
export { EvaluationWorker } from "./worker/evaluation-worker.ts";
export { WebhookDeliverer } from "./worker/webhook-deliverer.ts";
