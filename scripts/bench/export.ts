/**
 * (f) Bulk export: one full POST /logs/spans/export of the seeded project (BENCH_SPANS spans, every one of
 * them, newest first) per database, then one POST /logs/traces/export of its traces, after the rounds.
 * autocannon counts requests, and an export is one long request: this reads its NDJSON body with fetch as fast
 * as it comes, counts the item lines, and samples the
 * server's RSS every 100 ms (/proc/<pid>/status) to report its RSS before the export and its peak during the
 * first and the second half of the items. The export's memory is one page of 200 items however many it sends
 * (ADR 0014): the second half's peak should be no higher than the first's.
 */
import { rssMb } from "./processes.ts";
import type { StoreName } from "./targets.ts";

export interface ExportRequest {
  url: string;
  key: string;
  body: Record<string, unknown>;
}

/** Which export: of spans or of traces. */
export type ExportKind = "spans" | "traces";

export interface ExportResult {
  store: StoreName;
  kind: ExportKind;
  /** Items (spans or traces) received. */
  items: number;
  bytes: number;
  seconds: number;
  rssBefore: number;
  /** The peak RSS while the first half of the items came, and while the second half did. */
  rssPeakFirstHalf: number;
  rssPeakSecondHalf: number;
  /** Whether the body ended with the `end` line and its count matched the lines. */
  complete: boolean;
  reason?: string;
}

export async function measureExport(
  store: StoreName,
  request: ExportRequest,
  pid: number | undefined,
  kind: ExportKind,
): Promise<ExportResult> {
  const rssBefore = rssMb(pid);
  const samples: { items: number; rss: number }[] = [];
  let items = 0;
  const sampler = setInterval(() => samples.push({ items, rss: rssMb(pid) }), 100);
  // NaN (printed "–") when the export ended before a sample of that half was taken.
  const peak = (half: (at: number) => boolean) => {
    const rss = samples.filter((sample) => half(sample.items)).map((sample) => sample.rss);
    return rss.length === 0 ? Number.NaN : Math.max(...rss);
  };
  const started = performance.now();
  let bytes = 0;
  let last = "";
  try {
    const response = await fetch(`${request.url}/v2/logs/${kind}/export`, {
      method: "POST",
      headers: { Authorization: `Bearer ${request.key}`, "Content-Type": "application/json" },
      body: JSON.stringify(request.body),
    });
    if (response.status !== 200 || !response.body) {
      const text = await response.text();
      return {
        store,
        kind,
        items,
        bytes,
        seconds: 0,
        rssBefore,
        rssPeakFirstHalf: Number.NaN,
        rssPeakSecondHalf: Number.NaN,
        complete: false,
        reason: `${response.status} ${text.slice(0, 80)}`,
      };
    }
    const decoder = new TextDecoder();
    let tail = "";
    for await (const chunk of response.body) {
      bytes += chunk.byteLength;
      const text = tail + decoder.decode(chunk, { stream: true });
      const lines = text.split("\n");
      tail = lines.pop() ?? "";
      for (const line of lines) {
        if (line.startsWith('{"id":')) items += 1;
        else last = line;
      }
    }
    const seconds = (performance.now() - started) / 1000;
    const end = JSON.parse(last || "{}") as { end?: boolean; exported?: number };
    return {
      store,
      kind,
      items,
      bytes,
      seconds,
      rssBefore,
      rssPeakFirstHalf: peak((at) => at < items / 2),
      rssPeakSecondHalf: peak((at) => at >= items / 2),
      complete: end.end === true && end.exported === items,
    };
  } finally {
    clearInterval(sampler);
  }
}

export function printExport(results: ExportResult[]) {
  if (results.length === 0) return;
  const lines = [
    "",
    "(f) POST /logs/spans/export (every seeded span) and /logs/traces/export (every trace), one each per database (NDJSON read with fetch)",
    "store     export         items   seconds  items/s   MB/s   RSS before MB  peak 1st half  peak 2nd half  complete",
  ];
  for (const r of results) {
    if (r.reason) {
      lines.push(`${r.store.padEnd(8)}  ${r.kind.padEnd(6)}  not measured: ${r.reason}`);
      continue;
    }
    lines.push(
      [
        r.store.padEnd(8),
        r.kind.padEnd(6),
        r.items.toLocaleString("en").padStart(10),
        r.seconds.toFixed(1).padStart(8),
        Math.round(r.items / r.seconds)
          .toLocaleString("en")
          .padStart(8),
        (r.bytes / 1024 / 1024 / r.seconds).toFixed(1).padStart(6),
        r.rssBefore.toFixed(0).padStart(14),
        (Number.isNaN(r.rssPeakFirstHalf) ? "–" : r.rssPeakFirstHalf.toFixed(0)).padStart(13),
        (Number.isNaN(r.rssPeakSecondHalf) ? "–" : r.rssPeakSecondHalf.toFixed(0)).padStart(13),
        r.complete ? "yes" : "NO",
      ].join("  "),
    );
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}
