/**
 * The load generator: a long-lived process of its own (pinned to its own core by run.ts) that runs one
 * autocannon measurement per message it receives over the IPC channel and answers with the figures.
 *
 * Latencies are taken from autocannon's per-response event with sub-millisecond precision (autocannon's own
 * histogram rounds to whole milliseconds, too coarse for the ceilings). At a fixed offered rate a late
 * response also delays the requests queued behind it on its connection; as autocannon does, such
 * coordinated omission is corrected by recording the latencies those requests would have seen.
 */
import autocannon from "autocannon";
import { referenceIds } from "./payload.ts";

export interface LoadJob {
  /** Base URL, e.g. http://127.0.0.1:40123 */
  url: string;
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  /** A fixed body, or a template whose placeholder gets a unique referenceId per request. */
  body?: string;
  template?: { prefix: string; suffix: string };
  connections: number;
  durationSeconds: number;
  /** Requests per second offered over all connections; unset for a closed loop (as fast as answered). */
  overallRate?: number;
}

export interface LoadResult {
  /** Responses received (any status) per second. */
  rps: number;
  /** 2xx responses per second. */
  okPerSecond: number;
  requests: number;
  ok: number;
  /** Count per non-2xx status code. */
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  durationSeconds: number;
  /** Milliseconds, over 2xx responses. */
  p50: number;
  p99: number;
  mean: number;
  /** The body of the first non-2xx response, for diagnosis. */
  firstFailure?: string;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

export async function runLoad(job: LoadJob): Promise<LoadResult> {
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  const record = (value: number) => {
    if (count === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[count++] = value;
  };
  const expectedInterval = job.overallRate ? (1000 * job.connections) / job.overallRate : undefined;
  const nextReference = referenceIds();
  const template = job.template;
  let firstFailure: string | undefined;

  const request: autocannon.Request = {
    method: job.method,
    path: job.path,
    headers: job.headers,
    ...(job.body !== undefined && { body: job.body }),
    ...(template && {
      setupRequest: (req: autocannon.Request) => {
        req.body = template.prefix + nextReference() + template.suffix;
        return req;
      },
    }),
    onResponse: (status: number, body: string) => {
      if ((status < 200 || status > 299) && firstFailure === undefined) firstFailure = `${status} ${body}`;
    },
  };

  const onResponse = (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (statusCode < 200 || statusCode > 299) return;
    record(responseTime);
    if (expectedInterval !== undefined) {
      for (let missed = responseTime - expectedInterval; missed >= expectedInterval; missed -= expectedInterval) {
        record(missed);
      }
    }
  };
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: job.url,
        connections: job.connections,
        duration: job.durationSeconds,
        ...(job.overallRate && { overallRate: job.overallRate }),
        requests: [request],
        timeout: 30,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    instance.on("response", onResponse);
  });

  const sorted = latencies.subarray(0, count).sort();
  let sum = 0;
  for (const value of sorted) sum += value;
  const statuses: Record<string, number> = {};
  for (const [code, { count: n }] of Object.entries(result.statusCodeStats ?? {})) {
    if (!code.startsWith("2")) statuses[code] = n ?? 0;
  }
  const durationSeconds = result.duration;
  return {
    rps: result.requests.total / durationSeconds,
    okPerSecond: result["2xx"] / durationSeconds,
    requests: result.requests.total,
    ok: result["2xx"],
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
    durationSeconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    mean: count === 0 ? Number.NaN : sum / count,
    ...(firstFailure !== undefined && { firstFailure: firstFailure.slice(0, 500) }),
  };
}

// As a child process: one job per message, answered in order.
if (process.send) {
  let queue = Promise.resolve();
  process.on("message", (message: { id: number; job: LoadJob }) => {
    queue = queue.then(async () => {
      try {
        process.send?.({ id: message.id, result: await runLoad(message.job) });
      } catch (error) {
        process.send?.({ id: message.id, error: (error as Error)?.stack ?? String(error) });
      }
    });
  });
  process.on("disconnect", () => process.exit(0));
}
