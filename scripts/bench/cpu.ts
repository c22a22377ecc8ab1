/** CPU time of the bench's server and its database, for measures steadier than rates on a shared machine. */
import { readFileSync } from "node:fs";
import { sql } from "kysely";
import type { Store } from "../../apps/server/src/store/store.ts";

/**
 * CPU time in ms of the server process and, on PostgreSQL, of the backends of its database (this bench's own),
 * from /proc: less at the mercy of a shared machine's load than a rate is. A backend that exits between two
 * samples takes its time with it (the pool keeps its connections while the load runs).
 */
export async function cpuMs(
  serverPid: number | undefined,
  postgres: Store | undefined,
  { ownBackend = false }: { ownBackend?: boolean } = {},
): Promise<Cpu> {
  const pids: number[] = [];
  if (postgres) {
    // The backend that asks is left out unless it is the measured work's own (a store whose pool may run both).
    const { rows } = await sql<{ pid: number }>`
      select pid from pg_stat_activity where datname = current_database()
      and (${ownBackend} or pid <> pg_backend_pid())`.execute(postgres.db);
    pids.push(...rows.map((row) => Number(row.pid)));
  }
  const ticksOf = (pid: number) => {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
      return Number(fields[11]) + Number(fields[12]); // utime and stime (fields 14 and 15 of stat)
    } catch {
      return 0; // Gone, or no /proc.
    }
  };
  const toMs = (ticks: number) => (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
  const server = serverPid === undefined ? 0 : toMs(ticksOf(serverPid));
  const database = toMs(pids.reduce((sum, pid) => sum + ticksOf(pid), 0));
  return { server, database, total: server + database };
}

export interface Cpu {
  server: number;
  database: number;
  total: number;
}

export const minus = (a: Cpu, b: Cpu): Cpu => ({
  server: a.server - b.server,
  database: a.database - b.database,
  total: a.total - b.total,
});
export const plus = (a: Cpu, b: Cpu): Cpu => ({
  server: a.server + b.server,
  database: a.database + b.database,
  total: a.total + b.total,
});
export const NO_CPU: Cpu = { server: 0, database: 0, total: 0 };

/** Linux's USER_HZ, which /proc/<pid>/stat counts in. */
const CLOCK_TICKS_PER_SECOND = 100;
