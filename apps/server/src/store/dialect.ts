/** The database engine a store runs on. */
export type Dialect = "sqlite" | "postgres";
