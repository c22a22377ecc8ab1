/** API keys as the API shows them (ApiKey): never the secret's hash; restrictions as a list. */
import type { schemas } from "@pharos/contract";
import type { Role } from "../../auth/roles.ts";
import { fromJson } from "../json.ts";

export type ApiKey = schemas.ApiKey;

export interface ApiKeyRow {
  id: string;
  name: string;
  role: Role;
  projectIds: string | null;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
  lastUsedAt: number | null;
}

export const toApiKey = (row: ApiKeyRow): ApiKey => ({
  id: row.id,
  name: row.name,
  role: row.role,
  projectIds: row.projectIds === null ? null : fromJson<string[]>(row.projectIds),
  createdAt: row.createdAt,
  expiresAt: row.expiresAt,
  revokedAt: row.revokedAt,
  lastUsedAt: row.lastUsedAt,
});
