/**
 * Span origins (ADR 0013, migration 0026). What OpenTelemetry says about where a span was made — its resource
 * (`otel.resource.*`), instrumentation scope (`otel.scope.*`) and kind (`otel.span.kind`) — is the same for most
 * spans an application sends: OTLP itself sends the resource and scope once per batch. A span keeps them in its
 * `attributes`, but they are indexed for search once per distinct set, an origin, rather than once per span:
 * the span row names its origin (`originId`, a hash of the set), and `logOriginAttributes` holds the set's rows.
 * Span search finds a span by an origin attribute through its origin (services/logs/log-filters.ts).
 */
import { createHash } from "node:crypto";
import type { Insertable, Kysely } from "kysely";
import type { Database } from "../../store/schema.ts";
import type { Attributes } from "../logs/log-rows.ts";

export type OriginAttributeRow = Database["logOriginAttributes"];

/** Whether an attribute key belongs to a span's origin rather than to the span. */
export const isOriginKey = (key: string): boolean =>
  key.startsWith("otel.resource.") || key.startsWith("otel.scope.") || key === "otel.span.kind";

export interface SplitAttributes {
  /** The span's own attributes, indexed per span. */
  own: Attributes;
  /** Its origin, or null when it has no origin attribute. */
  originId: string | null;
  /** The origin's attribute rows (for a given project and origin, always the same rows). */
  originRows: OriginAttributeRow[];
}

type OriginEntry = [string, Attributes[string]];

/**
 * A request's spans' attributes split into their own and their origin's, the origin identified by a hash of its
 * attributes. The spans of a request mostly share one origin (OTLP sends a resource and scope once for many
 * spans): a span whose origin is the previous span's gets the same id and the same rows (one array), without
 * hashing again, so that the rows of a request's origins can be deduplicated by identity.
 */
export function originSplitter(): (projectId: string, attributes: Attributes) => SplitAttributes {
  let last:
    | { projectId: string; entries: OriginEntry[]; originId: string; originRows: OriginAttributeRow[] }
    | undefined;
  return (projectId, attributes) => {
    const own: Attributes = {};
    const entries: OriginEntry[] = [];
    for (const [key, value] of Object.entries(attributes)) {
      if (isOriginKey(key)) entries.push([key, value]);
      else own[key] = value;
    }
    if (entries.length === 0) return { own, originId: null, originRows: [] };
    // Keys in one order, so that the same set from exporters that order it differently is one origin.
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    if (last === undefined || last.projectId !== projectId || !sameEntries(last.entries, entries)) {
      last = { projectId, entries, ...originOf(projectId, entries) };
    }
    return { own, originId: last.originId, originRows: last.originRows };
  };
}

const sameEntries = (a: readonly OriginEntry[], b: readonly OriginEntry[]) =>
  a.length === b.length && a.every(([key, value], index) => key === b[index]?.[0] && value === b[index]?.[1]);

function originOf(projectId: string, entries: readonly OriginEntry[]) {
  const originId = `origin_${createHash("sha256").update(JSON.stringify(entries)).digest("base64url").slice(0, 32)}`;
  const originRows = entries.map(([key, value]) => ({
    projectId,
    originId,
    key,
    textValue: typeof value === "string" ? value : null,
    numberValue: typeof value === "number" ? value : null,
    booleanValue: typeof value === "boolean" ? (value ? 1 : 0) : null,
  }));
  return { originId, originRows };
}

/** The most origins a process remembers as stored; past it, it starts over (and stores each once more). */
const MAX_REMEMBERED_ORIGINS = 10_000;

const originKey = (row: Insertable<OriginAttributeRow>) => `${row.projectId}\n${row.originId}`;

/**
 * The origins whose rows this process has stored and seen committed. A write of an origin it knows leaves that
 * origin's rows out: they are in the database already, since an origin's rows never change and are deleted
 * only with their project. Only a committed write adds to it, so a rolled-back one leaves nothing marked stored.
 */
export class StoredOrigins {
  private readonly keys = new Set<string>();

  /** The rows of origins not known to be stored. */
  unknown(rows: readonly Insertable<OriginAttributeRow>[]): Insertable<OriginAttributeRow>[] {
    return rows.filter((row) => !this.keys.has(originKey(row)));
  }

  /** Marks the rows' origins stored: call once the rows' transaction has committed. */
  committed(rows: readonly Insertable<OriginAttributeRow>[]): void {
    for (const row of rows) {
      const key = originKey(row);
      if (this.keys.has(key)) continue;
      if (this.keys.size >= MAX_REMEMBERED_ORIGINS) this.keys.clear();
      this.keys.add(key);
    }
  }
}

const CHUNK = 500;
const ORIGIN_KEY = ["projectId", "key", "originId"] as const;

/**
 * Stores origins' rows where they are not stored yet (an origin's rows never change: its id is their hash).
 * Sorted by key and deduplicated first, so that PostgreSQL replicas inserting the same origins lock their keys
 * in one order.
 */
export async function addOriginAttributes(
  db: Kysely<Database>,
  rows: readonly Insertable<OriginAttributeRow>[],
): Promise<void> {
  const unique = new Map<string, Insertable<OriginAttributeRow>>();
  for (const row of rows) unique.set(`${row.projectId}\n${row.key}\n${row.originId}`, row);
  const sorted = [...unique].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
  for (let at = 0; at < sorted.length; at += CHUNK) {
    await db
      .insertInto("logOriginAttributes")
      .values(sorted.slice(at, at + CHUNK))
      .onConflict((conflict) => conflict.columns([...ORIGIN_KEY]).doNothing())
      .execute();
  }
}
