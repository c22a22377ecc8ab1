/**
 * What the logs benchmark measures, in interleaved rounds (median of the rounds):
 * (b) POST /logs/trace (one trace with 5 Model spans, ~14 KB) at 1, 10 and 50 connections and at 1,000 req/s
 *     offered, and flooded by 500 connections (measured last);
 * (c) POST /logs/traces and /logs/spans over a project seeded with BENCH_SPANS spans, with a time range, a
 *     name substring and an attribute filter: first page and page 50 (reached by following cursors);
 * (d) GET /deployments by id and by `latest`, and `latest` revalidated (If-None-Match: its ETag, answered 304);
 * (g) POST /logs/trace as (b) at 50 connections into a project with masking rules (every built-in detector and a
 *     custom pattern), to compare with (b) in the same round;
 * (e) the same trace as OTLP protobuf at 50 connections, to compare with (b) in the same round.
 * (b), (e) and (g) at 50 connections form a group (PAIRED): measured back to back PAIRED_BLOCKS times a round,
 * their order rotated from block to block, so that each block's (e)/(b) and (g)/(b) compare loads a few seconds
 * apart on the same database; their ratios are the median of the blocks' ratios (report.ts).
 * and after the rounds (f) the export (export.ts), (h) retention deleting half the seeded project (retention.ts)
 * and, on PostgreSQL, by rows vs by dropped partitions over a seed of its own (span-partitions.ts).
 * next to the two ceilings, (a) a bare Hono route and (v) the POST /logs/trace route with validation only.
 * On PostgreSQL, the rows of LIMITER_SCENARIOS run a second time against a server that counts rate limits in
 * its own memory, each right after the first, to show what the limits shared by replicas cost (ADR 0009).
 */
import { READ_SECONDS, WRITE_SECONDS } from "./options.ts";
import { SPANS_PER_TRACE } from "./payload.ts";

/** How deep the later-page searches (c) go, following cursors from page 1. */
export const PAGE = 50;

type Kind = "ceiling-a" | "ceiling-v" | "write" | "otlp" | "search" | "deployment";

export interface Scenario {
  id: string;
  kind: Kind;
  label: string;
  connections: number;
  rate?: number;
  seconds: number;
  /** Spans stored per 2xx response. */
  spansPerRequest?: number;
  /** Writes into a project with masking rules (MASKING_RULES), to compare with the same row without. */
  masked?: boolean;
}

/** The rows measured back to back in an order rotated from block to block, compared block by block with (b). */
export const PAIRED = ["b.c50", "e.c50", "g.c50"];
/** How often a round measures the PAIRED rows: the ratios' median needs more pairs than the rounds give. */
export const PAIRED_BLOCKS = 2;

/** The rules of the masked writes: every built-in detector and a custom pattern. */
export const MASKING_RULES = [
  { detector: "email" },
  { detector: "phone" },
  { detector: "creditCard" },
  { detector: "apiKey" },
  { detector: "regex", pattern: "order-[0-9]{6}", placeholder: "[ORDER]" },
];

export const ceilingScenarios: Scenario[] = [1, 10, 50].flatMap((connections) => [
  {
    id: `a.c${connections}`,
    kind: "ceiling-a" as const,
    label: "(a) bare Hono GET",
    connections,
    seconds: WRITE_SECONDS,
  },
  {
    id: `v.c${connections}`,
    kind: "ceiling-v" as const,
    label: "(v) POST /logs/trace validate only",
    connections,
    seconds: WRITE_SECONDS,
  },
]);

export const storeScenarios: Scenario[] = [
  ...[1, 10, 50].map((connections) => ({
    id: `b.c${connections}`,
    kind: "write" as const,
    label: "(b) POST /logs/trace",
    connections,
    seconds: WRITE_SECONDS,
    spansPerRequest: SPANS_PER_TRACE,
  })),
  // (e) the same trace as OTLP protobuf (5 GenAI chat spans): decoding and mapping on top of (b)'s write path.
  {
    id: "e.c50",
    kind: "otlp",
    label: "(e) POST /otel/v1/traces protobuf",
    connections: 50,
    seconds: WRITE_SECONDS,
    spansPerRequest: SPANS_PER_TRACE,
  },
  // (g) the same writes into a project with masking rules, next to (b) c50: the cost of masking.
  {
    id: "g.c50",
    kind: "write",
    label: "(g) POST /logs/trace masked",
    connections: 50,
    seconds: WRITE_SECONDS,
    spansPerRequest: SPANS_PER_TRACE,
    masked: true,
  },
  {
    id: "b.r1000",
    kind: "write",
    label: "(b) POST /logs/trace @1000/s offered",
    connections: 50,
    rate: 1_000,
    seconds: WRITE_SECONDS,
    spansPerRequest: SPANS_PER_TRACE,
  },
  { id: "c.traces.p1", kind: "search", label: "(c) POST /logs/traces page 1", connections: 1, seconds: READ_SECONDS },
  { id: "c.traces.pN", kind: "search", label: "(c) POST /logs/traces page 50", connections: 1, seconds: READ_SECONDS },
  { id: "c.spans.p1", kind: "search", label: "(c) POST /logs/spans page 1", connections: 1, seconds: READ_SECONDS },
  { id: "c.spans.pN", kind: "search", label: "(c) POST /logs/spans page 50", connections: 1, seconds: READ_SECONDS },
  { id: "d.id", kind: "deployment", label: "(d) GET /deployments by id", connections: 10, seconds: READ_SECONDS },
  {
    id: "d.latest",
    kind: "deployment",
    label: "(d) GET /deployments latest",
    connections: 10,
    seconds: READ_SECONDS,
  },
  {
    id: "d.revalidate",
    kind: "deployment",
    label: "(d) GET /deployments latest → 304",
    connections: 10,
    seconds: READ_SECONDS,
  },
  // Far more writers than storage keeps up with: the bounded queue of log writes answers the excess 503. Last,
  // so that the writes it leaves queued do not meet another row's requests.
  {
    id: "b.c500",
    kind: "write",
    label: "(b) POST /logs/trace flood",
    connections: 500,
    seconds: WRITE_SECONDS,
    spansPerRequest: SPANS_PER_TRACE,
  },
];

/** The hot paths measured with the shared rate limiter and without it (PostgreSQL). */
export const LIMITER_SCENARIOS = ["b.c1", "b.c10", "b.c50", "b.r1000", "d.id", "d.latest", "d.revalidate"];
