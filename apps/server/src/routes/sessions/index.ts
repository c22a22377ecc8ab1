import listSessionTraces from "./list-session-traces.ts";
import listSessions from "./list-sessions.ts";
import listUsers from "./list-users.ts";

/** The sessions and end users of a project's logs, in spec order. */
export const sessionRoutes = [listSessions, listSessionTraces, listUsers];
