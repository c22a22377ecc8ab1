import { entityTagOf, noneMatchHolds } from "../../http/entity-tag.ts";
import { getDeployment } from "../../services/deployments/get-deployment.ts";
import { defineRoute } from "../define-route.ts";

/** Applications poll this read: a copy they hold is confirmed by a 304 without a body (the spec's revalidation). */
export default defineRoute("getDeployment", async (c) => {
  const deployment = await getDeployment(c.var.ctx, c.req.valid("query"));
  const headers = { ETag: entityTagOf(deployment), "Cache-Control": "private, no-cache" } as const;
  if (noneMatchHolds(c.req.valid("header")["If-None-Match"], headers.ETag)) return c.body(null, 304, headers);
  return c.json(deployment, 200, headers);
});
