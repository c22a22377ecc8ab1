/** The roles an API key can have; what each may do is in principal.ts. */
export const ROLES = ["full", "read-only", "ingest-only"] as const;

export type Role = (typeof ROLES)[number];
