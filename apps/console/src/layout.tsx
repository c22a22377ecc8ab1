import { useQueryClient } from "@tanstack/react-query";
import { Link, Outlet, useLocation, useNavigate, useSearch } from "@tanstack/react-router";
import { createContext, useContext } from "react";
import { $api } from "./api.ts";
import { forgetKey } from "./session.ts";

export interface Workspace {
  projectId: string | undefined;
  /** Whether the key may change things: only `full` keys are offered edit controls. */
  canEdit: boolean;
}

const WorkspaceContext = createContext<Workspace>({ projectId: undefined, canEdit: false });
export const useWorkspace = () => useContext(WorkspaceContext);

/** The screens a project switch stays on: the section's own list (an opened prompt or dataset is the old project's). */
const SECTIONS = ["/prompts", "/datasets", "/evaluations", "/overview", "/sessions", "/settings"] as const;
const sectionOf = (pathname: string) => SECTIONS.find((section) => pathname.startsWith(section)) ?? "/";

/** The frame of every signed-in screen: navigation, project, the key's role, sign-out. */
export function Layout() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const location = useLocation();
  const search = useSearch({ strict: false }) as { project?: string };
  const key = $api.useQuery("get", "/api-keys/current");
  const projects = $api.useQuery("get", "/projects", { params: { query: { limit: 200 } } });
  const projectId = search.project ?? projects.data?.projects[0]?.id;

  function signOut() {
    forgetKey();
    queryClient.clear();
    void navigate({ to: "/sign-in" });
  }

  if (key.error) {
    forgetKey();
    void navigate({ to: "/sign-in" });
    return null;
  }

  const project = { project: projectId };
  return (
    <WorkspaceContext.Provider value={{ projectId, canEdit: key.data?.role === "full" }}>
      <header className="top">
        <strong className="brand">Pharos</strong>
        <nav aria-label="Main">
          <Link to="/" search={project} activeOptions={{ exact: true, includeSearch: false }}>
            Traces
          </Link>
          <Link to="/prompts" search={project} activeOptions={{ includeSearch: false }}>
            Prompts
          </Link>
          <Link to="/datasets" search={project} activeOptions={{ includeSearch: false }}>
            Datasets
          </Link>
          <Link to="/evaluations" search={project} activeOptions={{ includeSearch: false }}>
            Evaluations
          </Link>
          <Link to="/overview" search={project} activeOptions={{ includeSearch: false }}>
            Overview
          </Link>
          <Link to="/sessions" search={project} activeOptions={{ includeSearch: false }}>
            Sessions
          </Link>
          <Link to="/settings" search={project} activeOptions={{ includeSearch: false }}>
            Settings
          </Link>
        </nav>
        <label className="project">
          Project{" "}
          <select
            value={projectId ?? ""}
            onChange={(event) =>
              void navigate({
                to: sectionOf(location.pathname),
                search: { project: event.target.value },
              })
            }
          >
            {projects.data?.projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.title}
              </option>
            ))}
          </select>
        </label>
        <span className="role" title="The role of the API key you signed in with">
          {key.data ? `${key.data.name} · ${key.data.role}` : "…"}
        </span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main className="content">
        {projectId ? <Outlet /> : <p>{projects.isLoading ? "Loading…" : "No project."}</p>}
      </main>
    </WorkspaceContext.Provider>
  );
}
