import { noneMatchHolds, representationOf } from "../../http/entity-tag.ts";
import { getDeployment } from "../../services/deployments/get-deployment.ts";
import { defineRoute } from "../define-route.ts";

/**
 * Applications poll this read: a copy they hold is confirmed by a 304 without a body (the spec's revalidation),
 * and a deployment the read cache holds is sent as the JSON text made when it was first sent.
 */
export default defineRoute("getDeployment", async (c) => {
  const deployment = await getDeployment(c.var.ctx, c.req.valid("query"));
  const { json, tag } = representationOf(deployment);
  const headers = { ETag: tag, "Cache-Control": "private, no-cache" } as const;
  if (noneMatchHolds(c.req.header("If-None-Match"), tag)) return c.body(null, 304, headers);
  return c.body(json, 200, { ...headers, "Content-Type": "application/json" });
});
