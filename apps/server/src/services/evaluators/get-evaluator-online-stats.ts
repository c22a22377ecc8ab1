import type { schemas } from "@pharos/contract";
import { sql } from "kysely";
import { invalid } from "../../errors.ts";
import type { ServiceContext } from "../context.ts";
import type { PathOf, QueryOf, Unread } from "../operation-input.ts";
import { requireEvaluator } from "./evaluator.ts";

const DAY_MS = 24 * 60 * 60 * 1000;
/** The earliest Timestamp the API accepts or returns. */
const EARLIEST_TIMESTAMP = 1672511400000;

/** What the evaluator did with live spans queued in the window (counted from the queue rows). */
export async function getEvaluatorOnlineStats(
  ctx: ServiceContext,
  { promptId, evaluatorId }: PathOf<"getEvaluatorOnlineStats">,
  query: QueryOf<"getEvaluatorOnlineStats">,
): Promise<schemas.EvaluatorOnlineStats> {
  const { from: requestedFrom, to: requestedTo, ...unread } = query;
  unread satisfies Unread;
  const to = requestedTo ?? ctx.now();
  const from = requestedFrom ?? Math.max(EARLIEST_TIMESTAMP, to - DAY_MS);
  if (from > to) throw invalid("from", "must not be after to");
  const evaluator = await requireEvaluator(ctx, promptId, evaluatorId);
  const counts = await ctx.db
    .selectFrom("onlineEvaluations")
    .select([
      sql<number | string>`count(*)`.as("queued"),
      sql<number | string | null>`sum(case when "state" = 'done' and "error" is null then 1 else 0 end)`.as("graded"),
      sql<
        number | string | null
      >`sum(case when "state" = 'done' and "error" is null and "grade" = 'pass' then 1 else 0 end)`.as("passed"),
      sql<number | string | null>`sum(case when "state" = 'done' and "error" is not null then 1 else 0 end)`.as(
        "failed",
      ),
    ])
    .where("evaluatorId", "=", evaluator.id)
    .where("queuedAt", ">=", from)
    .where("queuedAt", "<=", to)
    .executeTakeFirstOrThrow();
  // PostgreSQL answers count and sum as bigint text, and sum over no rows as null.
  const queued = Number(counts.queued);
  const graded = Number(counts.graded ?? 0);
  const passed = Number(counts.passed ?? 0);
  const failed = Number(counts.failed ?? 0);
  return {
    evaluatorId: evaluator.id,
    from,
    to,
    queued,
    graded,
    passed,
    failed,
    pending: queued - graded - failed,
    passRate: graded === 0 ? null : passed / graded,
  };
}
