import type { Logger } from "pino";
import type { ServiceContext } from "../services/context.ts";

/** Variables every request carries through the middleware chain. */
export interface AppEnv {
  Variables: {
    requestId: string;
    logger: Logger;
    /** Set by authentication for /v2 routes. */
    ctx: ServiceContext;
  };
}
