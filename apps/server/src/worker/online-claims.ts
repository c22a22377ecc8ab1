/**
 * How workers share the queue of live spans (continuous evaluation, ADR 0016), beside evaluation run items:
 * a claim sets `state: claimed` with the worker's id and a lease on queue rows, by a conditional update (each
 * row pending, or claimed with an expired lease), so two workers never hold the same row while its lease
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
import { type ExpressionBuilder, type Kysely, sql } from "kysely";
import { fromJson } from "../services/json.ts";
import type { Database } from "../store/schema.ts";

export interface ClaimedSpan {
  spanId: string;
  evaluatorId: string;
  /** Graded by a judge model (an llm-as-a-judge evaluator): it holds one of the worker's model-call slots. */
  judged: boolean;
}

/** The key of a queue row: its span and evaluator. */
export const spanKey = (span: { spanId: string; evaluatorId: string }) => `${span.spanId}/${span.evaluatorId}`;

/**
 * What a claim found: spans claimed (leased) to be graded by the worker, and spans of evaluators whose grading is
 * a computation on the span alone (no model, no sandbox), not claimed: the worker grades them at once and
 * records those still free (recordUnclaimedSpanResults). Their rows are updated once instead of twice
 * (claimed, then done): on PostgreSQL each update of an indexed column writes every index of the queue again.
 */
export interface SpansToGrade {
  claimed: ClaimedSpan[];
  atOnce: ClaimedSpan[];
}

const GRADED_AT_ONCE: ReadonlySet<schemas.EvaluatorConfig["type"]> = new Set([
  "text-matcher",
  "json",
  "cost",
  "latency",
  "response-length",
]);

/** How many of each a claim may take: spans in all, and spans whose grading calls a judge model. */
export interface SpanClaimLimits {
  limit: number;
  judgeLimit: number;
}

export interface SpanClaimContext {
  db: Kysely<Database>;
  owner: string;
  now: number;
  leaseMs: number;
  judgeCallsPerMinute: number;
}

const MINUTE_MS = 60_000;
/** Candidates read per claimed row: some may be taken by another worker, or wait for their evaluator's cap. */
const CANDIDATES_PER_ROW = 4;

/**
 * Takes up to `limit` queued spans, of which at most `judgeLimit` call a judge model, the longest queued first
 * (a judged span beyond `judgeLimit` is passed over, not capped); those graded at once are returned unclaimed
 * (see SpansToGrade). The candidates are read, then the others claimed by one
 * conditional update of them all (a statement per row was ~50 round trips per claim, most of the grader's cost
 * on PostgreSQL, taken from ingestion in the same process): no transaction around them, since the update
 * claims each row only if it is still free, whatever was read; on SQLite it is one commit, taking the one
 * writer once.
 */
export async function claimSpans(context: SpanClaimContext, limits: SpanClaimLimits): Promise<SpansToGrade> {
  const { limit, judgeLimit } = limits;
  const claimed: ClaimedSpan[] = [];
  const atOnce: ClaimedSpan[] = [];
  if (limit <= 0) return { claimed, atOnce };
  let judgedClaimed = 0;
  const capped = new Set<string>();
  const budgets = new Map<string, number>();
  const taken = () => claimed.length + atOnce.length;
  // A second pass when the first skipped evaluators at their cap: their rows no longer hide the others'.
  for (let pass = 0; pass < 2 && taken() < limit; pass += 1) {
    const rows = await candidates(context, (limit - taken()) * CANDIDATES_PER_ROW, capped);
    if (rows.length === 0) break;
    let skipped = false;
    const chosen: ClaimedSpan[] = [];
    for (const row of rows) {
      if (taken() + chosen.length >= limit) break;
      if (capped.has(row.evaluatorId)) continue;
      const type = fromJson<schemas.EvaluatorConfig>(row.config).type;
      if (GRADED_AT_ONCE.has(type)) {
        atOnce.push({ spanId: row.spanId, evaluatorId: row.evaluatorId, judged: false });
        continue;
      }
      const judged = type === "llm-as-a-judge";
      if (judged && judgedClaimed >= judgeLimit) continue;
      if (judged) {
        const budget = budgets.get(row.evaluatorId) ?? (await judgeBudget(context, row.evaluatorId));
        if (budget <= 0) {
          capped.add(row.evaluatorId);
          skipped = true;
          continue;
        }
        // Counted when chosen: a row another worker takes first leaves the budget lower than it is, never higher.
        budgets.set(row.evaluatorId, budget - 1);
        judgedClaimed += 1;
      }
      chosen.push({ spanId: row.spanId, evaluatorId: row.evaluatorId, judged });
    }
    const won = await claimAll(context, chosen);
    claimed.push(...chosen.filter((span) => won.has(spanKey(span))));
    if (!skipped) break;
  }
  return { claimed, atOnce };
}

/**
 * The rows whose key is one of `keys`: a row value compared with a VALUES list, which both databases read
 * through the primary key.
 */
export const keyIn = (keys: readonly { spanId: string; evaluatorId: string }[]) =>
  sql<boolean>`(${sql.ref("spanId")}, ${sql.ref("evaluatorId")}) in (values ${sql.join(
    keys.map((key) => sql`(${key.spanId}, ${key.evaluatorId})`),
  )})`;

/** Rows free to take: pending, or claimed by a worker whose lease ran out. */
export const isFree = (now: number) => (eb: ExpressionBuilder<Database, "onlineEvaluations">) =>
  eb.or([eb("state", "=", "pending"), eb.and([eb("state", "=", "claimed"), eb("leaseExpiresAt", "<", now)])]);

/** Claims the rows of `spans` still free; returns the keys it took. */
async function claimAll(context: SpanClaimContext, spans: readonly ClaimedSpan[]): Promise<Set<string>> {
  if (spans.length === 0) return new Set();
  const { db, owner, now, leaseMs } = context;
  const taken = await db
    .updateTable("onlineEvaluations")
    .set({ state: "claimed", leaseOwner: owner, leaseExpiresAt: now + leaseMs })
    .where(keyIn(spans))
    .where(isFree(now))
    .returning(["spanId", "evaluatorId"])
    .execute();
  return new Set(taken.map(spanKey));
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
  if (spans.length === 0) return;
  await db
    .updateTable("onlineEvaluations")
    .set({ state: "pending", leaseOwner: null, leaseExpiresAt: null })
    .where(keyIn(spans))
    .where("leaseOwner", "=", owner)
    .where("state", "=", "claimed")
    .execute();
}
