/**
 * Mutations of the headers every operation shares: the key in malformed forms, request ids the server must not
 * echo, an Accept it cannot serve, a Content-Encoding the body does not have; and exportOtelTraces' project
 * header (other operations ignore it): another project, none that exists, malformed.
 */
import * as fc from "fast-check";
import type { World } from "../world.ts";

export interface HeaderMutation {
  name: string;
  /** null removes the header. */
  value: string | null;
}

export function headerMutations(world: World): fc.Arbitrary<HeaderMutation[]> {
  const key = world.apiKey;
  const values: Record<string, (string | null)[]> = {
    Authorization: [
      null,
      "",
      "Bearer",
      "Bearer ",
      `bearer ${key}`,
      `Bearer  ${key}`,
      `Bearer ${key} `,
      `Bearer ${key}x`,
      `Bearer ${key.slice(0, -1)}`,
      `Bearer ${key},${key}`,
      `Basic ${Buffer.from(`${key}:`).toString("base64")}`,
      `Bearer phk_${"A".repeat(4000)}`,
      "Bearer é",
      `Bearer ${key.replace("_", "\u00a0")}`,
    ],
    "X-Request-Id": ["", "not-a-uuid", "x".repeat(4000), "00000000-0000-0000-0000-000000000000", "é"],
    Accept: ["text/html", "application/xml", "*/*;q=0", "application/json;q=0"],
    "Content-Encoding": ["gzip", "br", "identity, gzip"],
    "Accept-Encoding": ["gzip", "*;q=0"],
    "x-pharos-project-id": [
      "",
      world.ids.projectId ?? "",
      "project_01JD8Q9E4F6G8H0J2K4M6N8P0Q",
      "not-a-project",
      `${world.ids.projectId ?? ""},${world.ids.projectId ?? ""}`,
      "x".repeat(4000),
      "é",
    ],
  };
  const mutation = fc.oneof(
    ...Object.entries(values).map(([name, options]) =>
      fc.constantFrom(...options).map((value): HeaderMutation => ({ name, value })),
    ),
  );
  return fc.array(mutation, { minLength: 1, maxLength: 2 });
}
