import createLogSpan from "./create-log-span.ts";
import createLogTrace from "./create-log-trace.ts";
import exportLogSpans from "./export-log-spans.ts";
import exportLogTraces from "./export-log-traces.ts";
import exportOtelTraces from "./export-otel-traces.ts";
import getLogSpan from "./get-log-span.ts";
import getLogTraceTree from "./get-log-trace-tree.ts";
import searchLogMetrics from "./search-log-metrics.ts";
import searchLogSpans from "./search-log-spans.ts";
import searchLogTraces from "./search-log-traces.ts";
import updateLogTrace from "./update-log-trace.ts";

/** The Logs operations, in spec order. */
export const logRoutes = [
  createLogTrace,
  updateLogTrace,
  createLogSpan,
  searchLogTraces,
  exportLogTraces,
  searchLogSpans,
  exportLogSpans,
  searchLogMetrics,
  exportOtelTraces,
  getLogTraceTree,
  getLogSpan,
];
