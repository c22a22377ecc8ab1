import { Link } from "@tanstack/react-router";
import { $api } from "../api.ts";
import { useWorkspace } from "../layout.tsx";
import { settingsRoute } from "../router.tsx";
import { ApiKeys } from "./api-keys.tsx";
import { Environments } from "./environments.tsx";
import { Projects } from "./projects.tsx";
import { Providers } from "./providers.tsx";
import { ScoreConfigs } from "./score-configs.tsx";
import { SECTIONS } from "./sections.ts";
import { Webhooks } from "./webhooks.tsx";

/**
 * What the signed-in key may do here: `canEdit` for a full key (project settings, environments, webhooks, score
 * configs), `isAdmin` for a full key not restricted to some projects (projects, providers, API keys).
 */
export function useSettingsAccess() {
  const { canEdit } = useWorkspace();
  const key = $api.useQuery("get", "/api-keys/current");
  return { canEdit, isAdmin: canEdit && key.data?.projectIds === null };
}

/** Workspace and project settings, one section at a time; the section is in the URL. */
export function Settings() {
  const { projectId } = useWorkspace();
  const search = settingsRoute.useSearch();
  const section = search.section ?? SECTIONS[0].id;
  const label = SECTIONS.find((candidate) => candidate.id === section)?.label;
  return (
    <section aria-labelledby="settings-title" className="settings">
      <h1 id="settings-title">Settings</h1>
      <nav aria-label="Settings sections" className="tabs">
        {SECTIONS.map((candidate) => (
          <Link
            key={candidate.id}
            to="/settings"
            search={{ project: projectId, section: candidate.id }}
            aria-current={candidate.id === section ? "page" : undefined}
          >
            {candidate.label}
          </Link>
        ))}
      </nav>
      <section aria-label={label} className="settings-section">
        {section === "projects" && <Projects />}
        {section === "environments" && <Environments />}
        {section === "providers" && <Providers />}
        {section === "api-keys" && <ApiKeys />}
        {section === "webhooks" && <Webhooks />}
        {section === "scores" && <ScoreConfigs />}
      </section>
    </section>
  );
}

/** The API's refusal to read a section (a 403 for this key's role), said plainly instead of an empty table. */
export function ReadRefused({ what, error }: { what: string; error: unknown }) {
  const body = error as { error?: { code?: string; message?: string } } | undefined;
  return (
    <p role="alert" className="error">
      {body?.error?.code === "FORBIDDEN"
        ? `This API key may not read ${what}: ${body.error.message ?? "the API refused it."}`
        : (body?.error?.message ?? `Could not load ${what}.`)}
    </p>
  );
}
