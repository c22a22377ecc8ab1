import type { Kysely } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations run before (and independently of) the typed schema.
export type AnyDb = Kysely<any>;
