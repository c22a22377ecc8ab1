import type { schemas } from "@pharos/contract";
import type { Database } from "../../store/schema.ts";
import { fromJson } from "../json.ts";

export type Project = schemas.Project;
export type Icon = schemas.Icon;

export const DEFAULT_PROJECT_ICON: Icon = { type: "emoji", value: "📁" };

export function toProject(row: Database["projects"]): Project {
  return {
    id: row.id,
    title: row.title,
    icon: fromJson<Icon>(row.icon),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
