/**
 * The score summaries that trace and span search results carry: per owner and score name, how many scores
 * there are and the latest one's value. One query per page, over the owners' score indexes (by trace, by
 * span), ranking each owner's scores of a name with a window function that both databases have.
 */
import type { schemas } from "@pharos/contract";
import { type Kysely, sql } from "kysely";
import type { Database, ScoreDataType } from "../../store/schema.ts";
import { scoreValueOf } from "./score.ts";

export type LogScoreSummary = schemas.LogScoreSummary;

/** The most score names a summary lists (LogTrace.scores, LogSpan.scores: maxItems). */
export const MAX_SUMMARY_NAMES = 50;

interface RankedScore {
  ownerId: string;
  name: string;
  dataType: ScoreDataType;
  numberValue: number | null;
  stringValue: string | null;
  createdAt: number | string;
  /** count(*) is a bigint on PostgreSQL, read back as a string. */
  total: number | string;
}

/**
 * The summaries of the scores of `ownerIds` (traces: the scores on each trace and on its spans; spans: the
 * scores on each span), in name order, at most MAX_SUMMARY_NAMES per owner. Owners without scores are absent.
 */
export async function scoreSummaries(
  db: Kysely<Database>,
  kind: "trace" | "span",
  ownerIds: readonly string[],
): Promise<Map<string, LogScoreSummary[]>> {
  const summaries = new Map<string, LogScoreSummary[]>();
  if (ownerIds.length === 0) return summaries;
  const owner = sql.ref(kind === "trace" ? "traceId" : "spanId");
  const ranked = await sql<RankedScore>`
    select "ownerId", "name", "dataType", "numberValue", "stringValue", "createdAt", "total"
    from (
      select ${owner} as "ownerId", "name", "dataType", "numberValue", "stringValue", "createdAt",
        row_number() over (partition by ${owner}, "name" order by "createdAt" desc, "id" desc) as "position",
        count(*) over (partition by ${owner}, "name") as "total"
      from "scores"
      where ${owner} in (${sql.join(ownerIds)})
    ) as "ranked"
    where "position" = 1
    order by "ownerId", "name"`.execute(db);
  for (const row of ranked.rows) {
    const list = summaries.get(row.ownerId) ?? [];
    if (list.length === MAX_SUMMARY_NAMES) continue;
    list.push({
      name: row.name,
      count: Number(row.total),
      latestValue: scoreValueOf(row),
      latestAt: Number(row.createdAt),
    });
    summaries.set(row.ownerId, list);
  }
  return summaries;
}
