/**
 * The settings screen's sections, in the order of its navigation. The open section lives in the URL
 * (`/settings?section=api-keys`) so a link shares it.
 */
export const SECTIONS = [
  { id: "projects", label: "Projects" },
  { id: "environments", label: "Environments" },
  { id: "providers", label: "Providers" },
  { id: "api-keys", label: "API keys" },
  { id: "webhooks", label: "Webhooks" },
  { id: "scores", label: "Score configs" },
] as const;

export type SettingsSection = (typeof SECTIONS)[number]["id"];

export interface SettingsSearch {
  section?: SettingsSection;
}

/** The section named in the URL's search; an unknown one is dropped (the first section shows). */
export function parseSettingsSection(search: Record<string, unknown>): SettingsSearch {
  const section = SECTIONS.find((candidate) => candidate.id === search.section)?.id;
  return section ? { section } : {};
}
