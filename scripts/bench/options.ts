/**
 * The options of a `pnpm bench` run: which suites and databases it measures (command line) and, from the mode
 * (`--quick` or full) and the environment, for how long and over how much data.
 *
 * Environment: BENCH_SPANS (default 1,000,000; 60,000 with --quick; a fifth of it, seeded twice more, for the
 * retention by rows vs by dropped partitions), BENCH_ROUNDS (3), BENCH_DURATION
 * (seconds per write/ceiling measurement; reads take half), BENCH_POSTGRES_URL (an admin connection,
 * default postgres://postgres@127.0.0.1:5432/postgres), BENCH_LOG_LEVEL (the server's LOG_LEVEL, default info),
 * BENCH_KEEP_LOGS=1 (keep the servers' logs), BENCH_MONITOR_TRACES (traces per monitor delivery measurement, default
 * 2,000; 300 with --quick).
 */
import { DEFAULT_POSTGRES_URL, type StoreName } from "./targets.ts";

const args = process.argv.slice(2);
export const quick = args.includes("--quick");
const storesArg = args.find((arg) => arg.startsWith("--stores"));
const storesValue = storesArg?.includes("=") ? storesArg.split("=")[1] : storesArg && args[args.indexOf(storesArg) + 1];
export const stores = (storesValue ?? "sqlite,postgres").split(",").filter(Boolean) as StoreName[];
const suiteIndex = args.indexOf("--suite");
const SUITES = ["logs", "evaluations", "computed", "online", "monitor", "console"];
export const suites = suiteIndex >= 0 ? [args[suiteIndex + 1]] : SUITES;
if (args.includes("--help") || suites.some((suite) => !SUITES.includes(suite as string))) {
  process.stdout.write(
    `usage: pnpm bench [--quick] [--stores sqlite,postgres] [--suite ${SUITES.join("|")}]  (see README, Benchmarks)\n`,
  );
  process.exit(0);
}
const envNumber = (name: string, fallback: number) => {
  const value = process.env[name];
  return value === undefined || value === "" ? fallback : Number(value);
};
export const SEED_SPANS = envNumber("BENCH_SPANS", quick ? 60_000 : 1_000_000);
/** (h) by rows vs by dropped partitions (span-partitions.ts) seeds this many twice: a fifth keeps --quick short. */
export const PARTITION_SPANS = Math.round(SEED_SPANS / 5);
export const ROUNDS = envNumber("BENCH_ROUNDS", 3);
export const WRITE_SECONDS = envNumber("BENCH_DURATION", quick ? 1 : 10);
export const READ_SECONDS = Math.max(1, WRITE_SECONDS / 2);
export const WARMUP_SECONDS = quick ? 0.5 : 2;
export const POSTGRES_URL = process.env.BENCH_POSTGRES_URL || DEFAULT_POSTGRES_URL;
export const LOG_LEVEL = process.env.BENCH_LOG_LEVEL || "info";
export const KEEP_LOGS = process.env.BENCH_KEEP_LOGS === "1";
