/**
 * The console's screens and their URLs. What a person would share (project, filters, the selected span) is in
 * the URL's search; every screen but sign-in needs a stored key.
 */
import {
  createRootRoute,
  createRoute,
  createRouter,
  lazyRouteComponent,
  Outlet,
  redirect,
} from "@tanstack/react-router";
import { EvaluationsPage } from "./evaluations/evaluations-page.tsx";
import { EvaluationsHome } from "./evaluations/prompt-picker.tsx";
import { type EvaluationsSearch, parseEvaluationsSearch } from "./evaluations/view.ts";
import { Layout } from "./layout.tsx";
import { type OverviewSearch, parseOverviewSearch } from "./overview/metrics.ts";
import { Overview } from "./overview/overview.tsx";
import { PromptEditor } from "./prompts/prompt-editor.tsx";
import { PromptList } from "./prompts/prompt-list.tsx";
import { storedKey } from "./session.ts";
import { SessionList } from "./sessions/session-list.tsx";
import { SessionView } from "./sessions/session-view.tsx";
import { parseSessionsSearch, type SessionsSearch } from "./sessions/sessions.ts";
import { parseSettingsSection, type SettingsSearch } from "./settings/sections.ts";
import { Settings } from "./settings/settings.tsx";
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

// Datasets: the project's list, and one dataset (shareable by its URL). Loaded when first opened: the table and
// CSV libraries stay out of the first load.
export const datasetsRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: "/datasets",
  validateSearch: projectOf,
  component: lazyRouteComponent(() => import("./datasets/dataset-list.tsx"), "DatasetList"),
});
export const datasetRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: "/datasets/$datasetId",
  validateSearch: projectOf,
  component: lazyRouteComponent(() => import("./datasets/dataset-editor.tsx"), "DatasetEditor"),
});

// Evaluations: pick a prompt, then its evaluators, runs, results and comparisons (state in the search).
export const evaluationsHomeRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: "/evaluations",
  validateSearch: projectOf,
  component: EvaluationsHome,
});

export const evaluationsRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: "/evaluations/$promptId",
  validateSearch: (search: Record<string, unknown>): ProjectSearch & EvaluationsSearch => ({
    ...projectOf(search),
    ...parseEvaluationsSearch(search),
  }),
  component: EvaluationsPage,
});

// Settings: the section (projects, environments, providers, API keys, webhooks, scores) is in the URL.
export const settingsRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: "/settings",
  validateSearch: (search: Record<string, unknown>): ProjectSearch & SettingsSearch => ({
    ...projectOf(search),
    ...parseSettingsSection(search),
  }),
  component: Settings,
});

// Overview, sessions and users.
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

const routeTree = rootRoute.addChildren([
  signInRoute,
  signedInRoute.addChildren([
    tracesRoute,
    traceRoute,
    promptsRoute,
    promptRoute,
    datasetsRoute,
    datasetRoute,
    evaluationsHomeRoute,
    evaluationsRoute,
    overviewRoute,
    sessionsRoute,
    sessionRoute,
    settingsRoute,
  ]),
]);

export const router = createRouter({ routeTree });

declare module "@tanstack/react-router" {
  interface Register {
    router: typeof router;
  }
}
