import type { ServiceContext } from "../context.ts";
import type { PathOf } from "../operation-input.ts";
import { requireProvider } from "./provider.ts";

/**
 * Deletes a provider record with its credentials. Prompts, deployments and evaluators naming it keep the id;
 * their later model calls through it fail with a reason (see resolve-target.ts).
 */
export async function deleteProvider(ctx: ServiceContext, { providerId }: PathOf<"deleteProvider">): Promise<void> {
  const provider = await requireProvider(ctx, providerId);
  await ctx.db.deleteFrom("providers").where("id", "=", provider.id).execute();
}
