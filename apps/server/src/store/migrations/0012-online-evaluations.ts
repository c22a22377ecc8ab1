import { type Migration, sql } from "kysely";
import type { Dialect } from "../dialect.ts";
import type { AnyDb } from "./any-db.ts";

/**
 * Continuous evaluation (ADR 0016): evaluators' online settings, and the queue of live spans to grade. A queue
 * row is inserted in the transaction that commits its span, one per evaluator that samples it; workers claim
 * rows with a lease (`state`, `leaseOwner`, `leaseExpiresAt`, as evaluation run items) and record the grade on
 * the row itself, which is what an evaluator's online counts are read from. No foreign key to the evaluator: a
 * log write must not fail because an evaluator was deleted after the write read it; the worker drops the rows
 * of an evaluator that is gone.
 *
 * The log write path reads a prompt's active evaluators from the read cache, so `evaluators` joins the cached
 * tables here: its changes bump the cache generation (the triggers of migration 0007).
 */
export const onlineEvaluations: (dialect: Dialect) => Migration = (dialect) => ({
  async up(db: AnyDb) {
    const real = dialect === "postgres" ? "double precision" : "real";
    await db.schema
      .alterTable("evaluators")
      .addColumn("onlineSampleRate", real, (c) => c.notNull().defaultTo(1))
      .execute();
    await db.schema
      .alterTable("evaluators")
      .addColumn("onlineFilters", "text", (c) => c.notNull().defaultTo("[]"))
      .execute();

    await db.schema
      .createTable("onlineEvaluations")
      .addColumn("spanId", "text", (c) => c.notNull())
      .addColumn("evaluatorId", "text", (c) => c.notNull())
      .addColumn("workspaceId", "text", (c) => c.notNull())
      .addColumn("projectId", "text", (c) => c.notNull())
      .addColumn("traceId", "text", (c) => c.notNull())
      .addColumn("state", "text", (c) => c.notNull())
      .addColumn("leaseOwner", "text")
      .addColumn("leaseExpiresAt", "bigint")
      .addColumn("queuedAt", "bigint", (c) => c.notNull())
      .addColumn("gradedAt", "bigint")
      .addColumn("grade", "text")
      .addColumn("score", real)
      .addColumn("reason", "text")
      .addColumn("error", "text")
      .addColumn("judgeCalls", "integer", (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint("onlineEvaluationsKey", ["spanId", "evaluatorId"])
      .execute();
    // Claims walk pending rows oldest first, and rows of dead workers by lease expiry.
    await db.schema
      .createIndex("onlineEvaluationsClaimable")
      .on("onlineEvaluations")
      .columns(["state", "queuedAt"])
      .execute();
    // An evaluator's counts over a window, and its judge calls of the last minute.
    await db.schema
      .createIndex("onlineEvaluationsByEvaluator")
      .on("onlineEvaluations")
      .columns(["evaluatorId", "queuedAt"])
      .execute();
    await db.schema
      .createIndex("onlineEvaluationsByGradedAt")
      .on("onlineEvaluations")
      .columns(["evaluatorId", "gradedAt"])
      .execute();

    if (dialect === "postgres") {
      await sql`create trigger "evaluatorsBumpCacheGeneration" after insert or update or delete
        on "evaluators" for each statement execute function "bumpCacheGeneration"()`.execute(db);
      return;
    }
    const bump = sql.raw(`update "cacheGeneration" set "generation" = "generation" + 1`);
    for (const event of ["insert", "update", "delete"]) {
      await sql`create trigger ${sql.id(`evaluatorsBumpCacheGenerationOn${event}`)} after ${sql.raw(event)}
        on "evaluators" begin ${bump}; end`.execute(db);
    }
  },
});
