/**
 * What the two databases spell differently, for the queries of services and workers: row locks, JSON
 * functions, and a lookup whose plan must not depend on PostgreSQL's statistics. Each adapter supplies one of
 * these, so no code outside `store/` asks which database it is on.
 */
import { type Expression, type RawBuilder, type SelectQueryBuilder, sql } from "kysely";

type Lock = <DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>) => SelectQueryBuilder<DB, TB, O>;

/**
 * Row locks held until the transaction ends. On SQLite each is the query unchanged: its transactions begin
 * with the database's write lock (`begin immediate`), which already serializes every writer.
 */
export interface RowLocks {
  /** The selected rows, for a change that must not interleave with another transaction's. */
  forUpdate: Lock;
  /** Shared: other transactions may read and share-lock the rows, not change them. */
  forShare: Lock;
  /** For update, passing over rows another transaction holds (work queues: each claimer takes other rows). */
  forUpdateSkipLocked: Lock;
}

/** SQL over JSON objects stored as text. `key` is an id: it holds no double quote. */
export interface JsonText {
  /** Whether the database's JSON functions can read `text` (PostgreSQL's json types refuse an escaped NUL). */
  readable(text: Expression<string>): RawBuilder<boolean>;
  hasMember(text: Expression<string>, key: string): RawBuilder<boolean>;
  /** `text` without its member `key`. */
  withoutMember(text: Expression<string>, key: string): RawBuilder<string>;
}

export interface DialectSql {
  locks: RowLocks;
  json: JsonText;
  /** The aggregate joining a group's texts with `separator` (SQLite's group_concat, PostgreSQL's string_agg). */
  joinedTexts(text: Expression<string>, separator: string): RawBuilder<string>;
  /**
   * The referenceIds among `references` (at most a few hundred) that name a trace of the project: one probe
   * of its unique reference index each. On PostgreSQL, `"referenceId" in (…)` is a list the planner may read
   * as a filter over every trace of the project instead, which it does when its statistics say the project
   * has almost none (a project that began receiving traces since the last ANALYZE): each write batch then read
   * all of them (ADR 0013). A lateral probe per reference has no such plan.
   */
  storedTraceReferences(projectId: string, references: readonly string[]): RawBuilder<{ referenceId: string }>;
}

const unchanged: Lock = (query) => query;

export const sqliteSql: DialectSql = {
  locks: { forUpdate: unchanged, forShare: unchanged, forUpdateSkipLocked: unchanged },
  json: {
    readable: () => sql<boolean>`1 = 1`,
    hasMember: (text, key) => sql<boolean>`json_type(${text}, ${`$."${key}"`}) is not null`,
    withoutMember: (text, key) => sql<string>`json_remove(${text}, ${`$."${key}"`})`,
  },
  joinedTexts: (text, separator) => sql<string>`group_concat(${text}, ${separator})`,
  storedTraceReferences: (projectId, references) => sql<{ referenceId: string }>`
    select "referenceId" from "logTraces"
    where "projectId" = ${projectId} and "referenceId" in (${sql.join(references)})`,
};

/** A NUL character as JSON.stringify writes it. */
const ESCAPED_NUL = "\\u0000";

export const postgresSql: DialectSql = {
  locks: {
    forUpdate: (query) => query.forUpdate(),
    forShare: (query) => query.forShare(),
    forUpdateSkipLocked: (query) => query.forUpdate().skipLocked(),
  },
  json: {
    readable: (text) => sql<boolean>`strpos(${text}, ${ESCAPED_NUL}) = 0`,
    hasMember: (text, key) => sql<boolean>`(${text}::jsonb -> ${key}) is not null`,
    withoutMember: (text, key) => sql<string>`(${text}::jsonb - ${key})::text`,
  },
  joinedTexts: (text, separator) => sql<string>`string_agg(${text}, ${separator})`,
  storedTraceReferences: (projectId, references) => sql<{ referenceId: string }>`
    select probe."referenceId" from unnest(cast(${references} as text[])) as probe("referenceId")
    cross join lateral (
      select 1 from "logTraces"
      where "logTraces"."projectId" = ${projectId} and "logTraces"."referenceId" = probe."referenceId"
      limit 1
    ) as stored`,
};
