import type { Kysely, Migration } from "kysely";
import { addToScoreRollups, scoreRollupRows } from "../../services/metrics/rollups.ts";
import type { Dialect } from "../dialect.ts";
import type { Database } from "../schema.ts";
import type { AnyDb } from "./any-db.ts";

/** Scores read per page while the rollups of the scores already stored are built. */
const BACKFILL_PAGE = 5_000;

/**
 * The score rollups (ADR 0017): count and sum of the numeric and boolean scores per project, bucket (minute,
 * hour, day) of their `createdAt` and score name, for `scoreAverage` in POST /logs/metrics. Kept by every score
 * write and delete in its transaction (services/scores); built here from the scores already stored.
 */
export const scoreRollups: (dialect: Dialect) => Migration = (dialect) => ({
  async up(db: AnyDb) {
    await db.schema
      .createTable("scoreRollups")
      .addColumn("projectId", "text", (c) => c.notNull())
      .addColumn("bucketSize", "text", (c) => c.notNull())
      .addColumn("bucketStart", "bigint", (c) => c.notNull())
      .addColumn("scoreName", "text", (c) => c.notNull())
      .addColumn("scoreCount", "bigint", (c) => c.notNull())
      .addColumn("scoreSum", dialect === "postgres" ? "double precision" : "real", (c) => c.notNull())
      .addPrimaryKeyConstraint("scoreRollupsKey", ["projectId", "bucketSize", "bucketStart", "scoreName"])
      .execute();
    await backfillScoreRollups(db as Kysely<Database>);
  },
});

/** Rolls up the scores stored before this migration, a page at a time (exported for its test). */
export async function backfillScoreRollups(db: Kysely<Database>): Promise<void> {
  for (let after = ""; ; ) {
    const scores = await db
      .selectFrom("scores")
      .select(["id", "projectId", "name", "createdAt", "numberValue"])
      .where("id", ">", after)
      .orderBy("id")
      .limit(BACKFILL_PAGE)
      .execute();
    if (scores.length === 0) break;
    await addToScoreRollups(db, scoreRollupRows(scores));
    after = (scores[scores.length - 1] as { id: string }).id;
  }
}
