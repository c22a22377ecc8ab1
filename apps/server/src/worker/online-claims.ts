/**
 * How workers share the queue of live spans (continuous evaluation, ADR 0016), beside evaluation run items:
 * a claim sets `state: claimed` with the worker's id and a lease on a queue row, by a conditional update per
 * row (pending, or claimed with an expired lease), so two workers never hold the same row while its lease
 * runs, whatever the database. The grade is recorded with a conditional update too (record-span-result.ts):
 * a span graded twice (a worker that lost its lease and finished anyway) counts, and scores, once.
 *
 * Only spans graded by a judge model take the worker's slots (its bound on model calls at once); the others are
 * graded in batches of their own, their cost being the database's.
 *
 * An `llm-as-a-judge` evaluator makes at most `judgeCallsPerMinute` judge calls a minute across workers:
 * the calls recorded in the last minute plus the rows held now (each may make one) must stay under it, or the
 * evaluator's rows wait for a later claim, and other evaluators' rows go first.
 */
import type { schemas } from "@pharos/contract";
import { type Kysely, sql } from "kysely";
import { fromJson } from "../services/json.ts";
import type { Database } from "../store/schema.ts";
import type { Store } from "../store/store.ts";

export interface ClaimedSpan {
  spanId: string;
  evaluatorId: string;
  /** Graded by a judge model (an llm-as-a-judge evaluator): it holds one of the worker's model-call slots. */
  judged: boolean;
}

/** The key of a queue row: its span and evaluator. */
export const spanKey = (span: { spanId: string; evaluatorId: string }) => `${span.spanId}/${span.evaluatorId}`;

/** How many of each a claim may take: spans in all, and spans whose grading calls a judge model. */
export interface SpanClaimLimits {
  limit: number;
  judgeLimit: number;
}

export interface SpanClaimContext {
  db: Kysely<Database>;
  store: Store;
  owner: string;
  now: number;
  leaseMs: number;
  judgeCallsPerMinute: number;
}

const MINUTE_MS = 60_000;
/** Candidates read per claimed row: some may be taken by another worker, or wait for their evaluator's cap. */
const CANDIDATES_PER_ROW = 4;

/**
 * Claims up to `limit` queued spans, of which at most `judgeLimit` call a judge model, the longest queued first
 * (a judged span beyond `judgeLimit` is passed over, not capped), in one transaction (one commit for the lot: on
 * SQLite every commit takes the one writer that log writes need too).
 */
export function claimSpans(context: SpanClaimContext, limits: SpanClaimLimits): Promise<ClaimedSpan[]> {
  if (limits.limit <= 0) return Promise.resolve([]);
  return context.store.transaction(context.db, (db) => claimSpansIn({ ...context, db }, limits));
}

async function claimSpansIn(context: SpanClaimContext, { limit, judgeLimit }: SpanClaimLimits): Promise<ClaimedSpan[]> {
  let judgedClaimed = 0;
  const capped = new Set<string>();
  const claimed: ClaimedSpan[] = [];
  const budgets = new Map<string, number>();
  // A second pass when the first skipped evaluators at their cap: their rows no longer hide the others'.
  for (let pass = 0; pass < 2 && claimed.length < limit; pass += 1) {
    const rows = await candidates(context, (limit - claimed.length) * CANDIDATES_PER_ROW, capped);
    if (rows.length === 0) break;
    let skipped = false;
    for (const row of rows) {
      if (claimed.length >= limit) break;
      if (capped.has(row.evaluatorId)) continue;
      const judged = fromJson<schemas.EvaluatorConfig>(row.config).type === "llm-as-a-judge";
      if (judged && judgedClaimed >= judgeLimit) continue;
      if (judged) {
        const budget = budgets.get(row.evaluatorId) ?? (await judgeBudget(context, row.evaluatorId));
        if (budget <= 0) {
          capped.add(row.evaluatorId);
          skipped = true;
          continue;
        }
        budgets.set(row.evaluatorId, budget);
      }
      if (!(await claimOne(context, row))) continue;
      claimed.push({ spanId: row.spanId, evaluatorId: row.evaluatorId, judged });
      if (judged) {
        judgedClaimed += 1;
        budgets.set(row.evaluatorId, (budgets.get(row.evaluatorId) ?? 0) - 1);
      }
    }
    if (!skipped) break;
  }
  return claimed;
}

/**
 * Rows to try, oldest first: those of dead workers (few: at most what workers hold at once), then pending ones.
 * Two statements, so each walks the (state, queuedAt) index instead of every done row of the queue.
 */
async function candidates(context: SpanClaimContext, max: number, capped: ReadonlySet<string>) {
  const select = (state: "claimed" | "pending", count: number) => {
    let query = context.db
      .selectFrom("onlineEvaluations")
      .innerJoin("evaluators", "evaluators.id", "onlineEvaluations.evaluatorId")
      .select(["onlineEvaluations.spanId", "onlineEvaluations.evaluatorId", "evaluators.config"])
      .where("onlineEvaluations.state", "=", state)
      // An archived evaluator grades nothing more: its waiting rows are settled by the queue's hygiene.
      .where("evaluators.status", "=", "active")
      .orderBy("onlineEvaluations.queuedAt")
      .limit(count);
    if (state === "claimed") query = query.where("onlineEvaluations.leaseExpiresAt", "<", context.now);
    if (capped.size > 0) query = query.where("onlineEvaluations.evaluatorId", "not in", [...capped]);
    return query.execute();
  };
  const expired = await select("claimed", max);
  return expired.length < max ? [...expired, ...(await select("pending", max - expired.length))] : expired;
}

/** Judge calls the evaluator may still start now: its cap less the last minute's calls and the rows held. */
async function judgeBudget(context: SpanClaimContext, evaluatorId: string): Promise<number> {
  const { db, now } = context;
  const used = await db
    .selectFrom("onlineEvaluations")
    .select(sql<number | string | null>`sum("judgeCalls")`.as("calls"))
    .where("evaluatorId", "=", evaluatorId)
    .where("gradedAt", ">=", now - MINUTE_MS)
    .executeTakeFirst();
  const held = await db
    .selectFrom("onlineEvaluations")
    .select(sql<number | string>`count(*)`.as("rows"))
    .where("evaluatorId", "=", evaluatorId)
    .where("state", "=", "claimed")
    .where("leaseExpiresAt", ">=", now)
    .executeTakeFirst();
  return context.judgeCallsPerMinute - Number(used?.calls ?? 0) - Number(held?.rows ?? 0);
}

async function claimOne(context: SpanClaimContext, row: { spanId: string; evaluatorId: string }): Promise<boolean> {
  const { db, owner, now, leaseMs } = context;
  const result = await db
    .updateTable("onlineEvaluations")
    .set({ state: "claimed", leaseOwner: owner, leaseExpiresAt: now + leaseMs })
    .where("spanId", "=", row.spanId)
    .where("evaluatorId", "=", row.evaluatorId)
    .where((eb) =>
      eb.or([eb("state", "=", "pending"), eb.and([eb("state", "=", "claimed"), eb("leaseExpiresAt", "<", now)])]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Extends the lease of every queued span `owner` holds. */
export async function renewSpanLeases(db: Kysely<Database>, owner: string, expiresAt: number): Promise<void> {
  await db
    .updateTable("onlineEvaluations")
    .set({ leaseExpiresAt: expiresAt })
    .where("leaseOwner", "=", owner)
    .where("state", "=", "claimed")
    .execute();
}

/** Gives back spans `owner` could not grade (a worker stopping), so another worker takes them at once. */
export async function releaseSpanLeases(
  db: Kysely<Database>,
  owner: string,
  spans: readonly ClaimedSpan[],
): Promise<void> {
  for (const span of spans) {
    await db
      .updateTable("onlineEvaluations")
      .set({ state: "pending", leaseOwner: null, leaseExpiresAt: null })
      .where("spanId", "=", span.spanId)
      .where("evaluatorId", "=", span.evaluatorId)
      .where("leaseOwner", "=", owner)
      .where("state", "=", "claimed")
      .execute();
  }
}
