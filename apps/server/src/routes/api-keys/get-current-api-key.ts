import { getCurrentApiKey } from "../../services/api-keys/get-current-api-key.ts";
import { defineRoute } from "../define-route.ts";

export default defineRoute("getCurrentApiKey", async (c) => c.json(await getCurrentApiKey(c.var.ctx), 200));
