/**
 * Schema migrations, applied at start. Written with Kysely's schema builder in types both dialects share
 * (text, bigint, integer), so one list serves SQLite and PostgreSQL; a dialect-specific step takes `dialect`.
 * A database records the migrations it has applied by the names below: a name never changes, and a change to
 * the schema is a new migration rather than an edit of one that databases have already applied.
 */
import type { Migration } from "kysely";
import type { Dialect } from "../dialect.ts";
import { core } from "./0001-core.ts";
import { logs } from "./0002-logs.ts";
import { evaluations } from "./0003-evaluations.ts";
import { logSearch } from "./0004-log-search.ts";
import { partialLogIndexes } from "./0005-partial-log-indexes.ts";
import { sideRowsBySearchKey } from "./0006-side-rows-by-search-key.ts";
import { cacheGeneration } from "./0007-cache-generation.ts";
import { apiKeyExpiry } from "./0008-api-key-expiry.ts";
import { rateLimitWindows } from "./0009-rate-limit-windows.ts";
import { webhooks } from "./0010-webhooks.ts";
import { scores } from "./0011-scores.ts";
import { onlineEvaluations } from "./0012-online-evaluations.ts";
import { metricRollups } from "./0013-metric-rollups.ts";
import { traceUsers } from "./0014-trace-users.ts";
import { maskingAndRetention } from "./0015-masking-and-retention.ts";
import { computedCells } from "./0016-computed-cells.ts";
import { datasetRowSources } from "./0017-dataset-row-sources.ts";
import { scoreRollups } from "./0020-score-rollups.ts";
import { dimensionRollups } from "./0021-dimension-rollups.ts";
import { spanTraceIndex } from "./0022-span-trace-index.ts";
import { audienceRollups } from "./0023-audience-rollups.ts";
import { compactHistograms } from "./0024-compact-histograms.ts";
import { spanTimePartitions } from "./0025-span-time-partitions.ts";
import { spanOrigins } from "./0026-span-origins.ts";

/** Every migration in order; names sort in the order they apply. */
export function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    "0001-core": core(dialect),
    "0002-logs": logs(dialect),
    "0003-evaluations": evaluations(dialect),
    "0004-log-search": logSearch(dialect),
    "0005-partial-log-indexes": partialLogIndexes,
    "0006-side-rows-by-search-key": sideRowsBySearchKey(dialect),
    "0007-cache-generation": cacheGeneration(dialect),
    "0008-api-key-expiry": apiKeyExpiry,
    "0009-rate-limit-windows": rateLimitWindows(dialect),
    "0010-webhooks": webhooks,
    "0011-scores": scores(dialect),
    "0012-online-evaluations": onlineEvaluations(dialect),
    "0013-metric-rollups": metricRollups(dialect),
    "0014-trace-users": traceUsers,
    "0015-masking-and-retention": maskingAndRetention,
    "0016-computed-cells": computedCells(dialect),
    "0017-dataset-row-sources": datasetRowSources,
    "0020-score-rollups": scoreRollups(dialect),
    "0021-dimension-rollups": dimensionRollups(dialect),
    "0022-span-trace-index": spanTraceIndex,
    "0023-audience-rollups": audienceRollups(dialect),
    "0024-compact-histograms": compactHistograms(dialect),
    "0025-span-time-partitions": spanTimePartitions(dialect),
    "0026-span-origins": spanOrigins(dialect),
  };
}
