/**
 * The console's screens and their URLs. What a person would share (project, filters, the selected span) is in
 * the URL's search; every screen but sign-in needs a stored key.
 */
import { createRootRoute, createRoute, createRouter, Outlet, redirect } from "@tanstack/react-router";
import { Layout } from "./layout.tsx";
import { type OverviewSearch, parseOverviewSearch } from "./overview/metrics.ts";
import { Overview } from "./overview/overview.tsx";
import { PromptEditor } from "./prompts/prompt-editor.tsx";
import { PromptList } from "./prompts/prompt-list.tsx";
import { storedKey } from "./session.ts";
import { SessionList } from "./sessions/session-list.tsx";
import { SessionView } from "./sessions/session-view.tsx";
import { parseSessionsSearch, type SessionsSearch } from "./sessions/sessions.ts";
import { SignIn } from "./sign-in.tsx";
import { parseTraceFilters, type TraceFilters } from "./traces/filters.ts";
import { TraceDetail } from "./traces/trace-detail.tsx";
import { TraceList } from "./traces/trace-list.tsx";

export interface ProjectSearch {
  project?: string;
}

const projectOf = (search: Record<string, unknown>): ProjectSearch =>
  typeof search.project === "string" && search.project !== "" ? { project: search.project } : {};

const rootRoute = createRootRoute({ component: Outlet });

export const signInRoute = createRoute({ getParentRoute: () => rootRoute, path: "/sign-in", component: SignIn });

const signedInRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: "signed-in",
  beforeLoad: () => {
    if (!storedKey()) throw redirect({ to: "/sign-in" });
  },
  component: Layout,
});

export const tracesRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: "/",
  validateSearch: (search: Record<string, unknown>): ProjectSearch & TraceFilters => ({
    ...projectOf(search),
    ...parseTraceFilters(search),
  }),
  component: TraceList,
});

export const traceRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: "/traces/$traceId",
  validateSearch: (search: Record<string, unknown>): ProjectSearch & { span?: string; view?: "raw" } => ({
    ...projectOf(search),
    ...(typeof search.span === "string" && { span: search.span }),
    ...(search.view === "raw" && { view: "raw" as const }),
  }),
  component: TraceDetail,
});

export const promptsRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: "/prompts",
  validateSearch: projectOf,
  component: PromptList,
});

export const promptRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: "/prompts/$promptId",
  validateSearch: (search: Record<string, unknown>): ProjectSearch & { from?: string; to?: string } => ({
    ...projectOf(search),
    ...(typeof search.from === "string" && { from: search.from }),
    ...(typeof search.to === "string" && { to: search.to }),
  }),
  component: PromptEditor,
});

// Overview, sessions and users (issue 19 screens 2 and 6).
export const overviewRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: "/overview",
  validateSearch: (search: Record<string, unknown>): ProjectSearch & OverviewSearch => ({
    ...projectOf(search),
    ...parseOverviewSearch(search),
  }),
  component: Overview,
});
export const sessionsRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: "/sessions",
  validateSearch: (search: Record<string, unknown>): ProjectSearch & SessionsSearch => ({
    ...projectOf(search),
    ...parseSessionsSearch(search),
  }),
  component: SessionList,
});
export const sessionRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: "/sessions/$sessionId",
  validateSearch: projectOf,
  component: SessionView,
});
const overviewRoutes = [overviewRoute, sessionsRoute, sessionRoute];

const routeTree = rootRoute.addChildren([
  signInRoute,
  signedInRoute.addChildren([tracesRoute, traceRoute, promptsRoute, promptRoute, ...overviewRoutes]),
]);

export const router = createRouter({ routeTree });

declare module "@tanstack/react-router" {
  interface Register {
    router: typeof router;
  }
}
