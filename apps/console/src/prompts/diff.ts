/**
 * A prompt version (a deployment's snapshot or the draft) as text a person compares: model configuration,
 * then each message with its role, then the tools; and the line diff of two versions.
 */
import { diffLines } from "diff";
import type { Schemas } from "../api.ts";

export interface Version {
  config: {
    provider: string | null;
    providerId?: string | null;
    model: string | null;
    settings?: Record<string, unknown>;
  };
  messages: Schemas["PromptMessage"][];
  tools: Schemas["PromptTool"][];
}

export const draftVersion = (draft: Schemas["PromptDraft"]): Version => ({
  config: { provider: draft.config.provider, model: draft.config.model, settings: draft.config.settings },
  messages: draft.messages,
  tools: draft.tools,
});

export const snapshotVersion = (snapshot: Schemas["PromptSnapshot"]): Version => ({
  config: {
    provider: snapshot.config.providerName ?? null,
    model: snapshot.config.model ?? null,
    settings: snapshot.config.settings,
  },
  messages: snapshot.messages,
  tools: snapshot.tools,
});

function partText(part: Schemas["MessageContent"]): string {
  if (part.modality === "text") return part.value;
  return JSON.stringify(part);
}

export function versionText(version: Version): string {
  const lines = [
    `provider: ${version.config.provider ?? "(none)"}`,
    `model: ${version.config.model ?? "(none)"}`,
    ...Object.entries(version.config.settings ?? {})
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, value]) => `${name}: ${JSON.stringify(value)}`),
  ];
  for (const message of version.messages) {
    lines.push("", `[${message.role}]`, ...message.content.map(partText));
  }
  if (version.tools.length > 0) lines.push("", "[tools]", JSON.stringify(version.tools, null, 2));
  return `${lines.join("\n")}\n`;
}

export interface DiffLine {
  kind: "same" | "added" | "removed";
  text: string;
}

/** Line by line, what `after` removed from and added to `before`. */
export function diffVersions(before: Version, after: Version): DiffLine[] {
  return diffLines(versionText(before), versionText(after)).flatMap((change) =>
    change.value
      .replace(/\n$/, "")
      .split("\n")
      .map((text) => ({ kind: change.added ? "added" : change.removed ? "removed" : "same", text }) as DiffLine),
  );
}
