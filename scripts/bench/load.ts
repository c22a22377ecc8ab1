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
import { referenceIds, traceIds } from "./payload.ts";

export interface LoadJob {
  /** Base URL, e.g. http://127.0.0.1:40123 */
  url: string;
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  /** A fixed body, or a template whose placeholder gets a unique referenceId per request. */
  body?: string;
  template?: { prefix: string; suffix: string };
  /** A binary body (base64) whose 16 bytes at each offset get a fresh trace id per request (OTLP protobuf). */
  binaryTemplate?: { base64: string; offsets: number[] };
  connections: number;
  durationSeconds: number;
  /** Requests per second offered over all connections; unset for a closed loop (as fast as answered). */
  overallRate?: number;
  /** The one status that counts as an answer (e.g. 304 for revalidations); unset, any 2xx does. */
  expectedStatus?: number;
}

export interface LoadResult {
  /** Responses received (any status) per second. */
  rps: number;
  /** Expected responses (2xx, or the job's expectedStatus) per second. */
  okPerSecond: number;
  requests: number;
  ok: number;
  /** Count per unexpected status code. */
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  durationSeconds: number;
  /** Milliseconds, over expected responses. */
  p50: number;
  p99: number;
  mean: number;
  /** The body of the first unexpected response, for diagnosis. */
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
  const nextTraceId = traceIds();
  const template = job.template;
  const binary = job.binaryTemplate && {
    body: Buffer.from(job.binaryTemplate.base64, "base64"),
    ...job.binaryTemplate,
  };
  let firstFailure: string | undefined;
  const expected = (status: number) =>
    job.expectedStatus === undefined ? status >= 200 && status <= 299 : status === job.expectedStatus;

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
    ...(binary && {
      setupRequest: (req: autocannon.Request) => {
        const body = Buffer.from(binary.body);
        const id = nextTraceId();
        for (const offset of binary.offsets) id.copy(body, offset);
        req.body = body as never;
        return req;
      },
    }),
    onResponse: (status: number, body: string) => {
      if (!expected(status) && firstFailure === undefined) firstFailure = `${status} ${body}`;
    },
  };

  const onResponse = (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (!expected(statusCode)) return;
    record(responseTime);
    if (expectedInterval !== undefined) {
      for (let missed = responseTime - expectedInterval; missed >= expectedInterval; missed -= expectedInterval) {
        record(missed);
      }
    }
  };
  const run = (options: autocannon.Options) =>
    new Promise<autocannon.Result>((resolve, reject) => {
      const instance = autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
      instance.on("response", onResponse);
    });
  const common = { url: job.url, duration: job.durationSeconds, requests: [request], timeout: 30 };
  const results = job.overallRate
    ? await steadyRate(job.connections, job.overallRate, (connectionRate) =>
        run({ ...common, connections: 1, connectionRate }),
      )
    : [await run({ ...common, connections: job.connections })];

  const sorted = latencies.subarray(0, count).sort();
  let sum = 0;
  for (const value of sorted) sum += value;
  const statuses: Record<string, number> = {};
  const total = { requests: 0, ok: 0, errors: 0, timeouts: 0 };
  for (const result of results) {
    total.requests += result.requests.total;
    total.errors += result.errors;
    total.timeouts += result.timeouts;
    for (const [code, { count: n }] of Object.entries(result.statusCodeStats ?? {})) {
      if (expected(Number(code))) total.ok += n ?? 0;
      else statuses[code] = (statuses[code] ?? 0) + (n ?? 0);
    }
  }
  // Every instance runs for the job's duration; at a steady rate their starts are spread over the first second.
  const durationSeconds = Math.max(...results.map((result) => result.duration));
  return {
    rps: total.requests / durationSeconds,
    okPerSecond: total.ok / durationSeconds,
    requests: total.requests,
    ok: total.ok,
    statuses,
    errors: total.errors,
    timeouts: total.timeouts,
    durationSeconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    mean: count === 0 ? Number.NaN : sum / count,
    ...(firstFailure !== undefined && { firstFailure: firstFailure.slice(0, 500) }),
  };
}

/**
 * A steady offered rate from autocannon. Its rate limit gives a connection its quota at the start of each of
 * that connection's seconds, on a timer set when the connection is made, and the connection then sends the
 * quota back to back. One instance makes all its connections at once, so it would offer the whole second's
 * requests as one burst at `connections` concurrency. Here each connection is an instance of its own, made
 * 1/connections of a second after the previous one, so the bursts are spread evenly over the second.
 */
async function steadyRate(
  connections: number,
  overallRate: number,
  runConnection: (connectionRate: number) => Promise<autocannon.Result>,
): Promise<autocannon.Result[]> {
  const connectionRate = overallRate / connections;
  const gapMs = 1000 / connections;
  return Promise.all(
    Array.from(
      { length: connections },
      (_, index) =>
        new Promise<autocannon.Result>((resolve, reject) => {
          setTimeout(() => runConnection(connectionRate).then(resolve, reject), index * gapMs);
        }),
    ),
  );
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
