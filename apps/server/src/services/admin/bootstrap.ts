/**
 * First start: on a database without workspaces, create a workspace, its default project and a full API key.
 *
 * Several replicas may start at once against one PostgreSQL database, so the check and the writes run in one
 * transaction that first upserts the `bootstrap` settings row: the row lock makes every other starter wait
 * until this transaction ends, and each then counts workspaces again (READ COMMITTED reads what committed
 * meanwhile) and finds them. On SQLite the upsert takes the database's write lock, with the same effect.
 */
import { type AdminContext, createApiKey, createProjectForWorkspace, createWorkspace } from "./workspaces.ts";

export const BOOTSTRAP_WORKSPACE_NAME = "Default workspace";
export const BOOTSTRAP_PROJECT_TITLE = "Default project";
export const BOOTSTRAP_KEY_NAME = "Bootstrap key";

type Workspace = Awaited<ReturnType<typeof createWorkspace>>;

export type BootstrapResult =
  | { created: false }
  | {
      created: true;
      workspace: Workspace;
      project: { id: string; title: string };
      /** `key` is the full key when it was generated here; absent for a preset key (the operator has it). */
      apiKey: { id: string; key?: string };
    };

export async function bootstrapIfEmpty(
  ctx: AdminContext,
  options: { presetKey?: { id: string; secretHash: string } } = {},
): Promise<BootstrapResult> {
  return ctx.store.transaction(ctx.db, async (trx) => {
    const tx = { ...ctx, db: trx };
    await trx
      .insertInto("settings")
      .values({ key: "bootstrap", value: String(ctx.now()) })
      .onConflict((oc) => oc.column("key").doUpdateSet((eb) => ({ value: eb.ref("excluded.value") })))
      .execute();
    const existing = await trx.selectFrom("workspaces").select("id").limit(1).executeTakeFirst();
    if (existing) return { created: false };

    const workspace = await createWorkspace(tx, BOOTSTRAP_WORKSPACE_NAME);
    const project = await createProjectForWorkspace(tx, workspace.id, BOOTSTRAP_PROJECT_TITLE);
    const apiKey = await createApiKey(tx, {
      workspaceId: workspace.id,
      name: BOOTSTRAP_KEY_NAME,
      role: "full",
      projectIds: null,
      ...(options.presetKey && { presetKey: options.presetKey }),
    });
    return {
      created: true,
      workspace,
      project: { id: project.id, title: project.title },
      apiKey: typeof apiKey.key === "string" ? { id: apiKey.id, key: apiKey.key } : { id: apiKey.id },
    };
  });
}
