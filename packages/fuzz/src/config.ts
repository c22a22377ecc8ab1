/** What a run fuzzes and how much, from the environment (README.md, "Running and replaying"). */

export interface FuzzConfig {
  seed: number;
  /** Cases per operation with a request body; operations without one get a third (they have less to vary). */
  runs: number;
  /**
   * The same on PostgreSQL. Validation and the answers' shapes are the same code on both databases, so SQLite's
   * run searches them; PostgreSQL's looks for what only its dialect can get wrong and needs fewer cases to do it.
   */
  postgresRuns: number;
  /** Replays one counterexample (fast-check's `path`); with `operations` naming the operation. */
  path: string | undefined;
  /** Fuzz only these operationIds (all when empty). */
  operations: ReadonlySet<string>;
}

export const DEFAULT_SEED = 1_301;
export const DEFAULT_RUNS = 150;

function integerFrom(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^-?\d+$/.test(raw)) throw new Error(`${name} must be an integer, not ${raw}`);
  return Number(raw);
}

export function fuzzConfig(): FuzzConfig {
  const operations = (process.env.PHAROS_FUZZ_OPERATIONS ?? "").split(",").filter((id) => id !== "");
  const path = process.env.PHAROS_FUZZ_PATH || undefined;
  if (path !== undefined && operations.length !== 1) {
    throw new Error("PHAROS_FUZZ_PATH replays one operation's case: name it in PHAROS_FUZZ_OPERATIONS");
  }
  const runs = integerFrom("PHAROS_FUZZ_RUNS", DEFAULT_RUNS);
  return {
    seed: integerFrom("PHAROS_FUZZ_SEED", DEFAULT_SEED),
    runs,
    postgresRuns: integerFrom("PHAROS_FUZZ_POSTGRES_RUNS", Math.ceil(runs / 3)),
    path,
    operations: new Set(operations),
  };
}

export interface Database {
  name: string;
  url: string | undefined;
  /** Cases per operation with a body on this database. */
  runs: number;
}

/** SQLite always; PostgreSQL when PHAROS_TEST_DATABASE_URL names a database (as .ci/run sets it). */
export function databases(config: FuzzConfig): Database[] {
  const postgres = process.env.PHAROS_TEST_DATABASE_URL;
  return [
    { name: "SQLite", url: undefined, runs: config.runs },
    ...(postgres ? [{ name: "PostgreSQL", url: postgres, runs: config.postgresRuns }] : []),
  ];
}
