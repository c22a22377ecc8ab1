/**
 * Mergeable latency histograms with log-spaced buckets (the DDSketch mapping): a latency x > 0 falls in bucket
 * i = ceil(log_γ x), which holds (γ^(i−1), γ^i]; the bucket is represented by 2γ^i / (γ + 1), within
 * RELATIVE_ERROR of every value in it. A percentile read from the histogram is therefore within RELATIVE_ERROR
 * (relative) of the exact nearest-rank percentile of the values counted, however many histograms were merged.
 *
 * Stored as compact text (migration 0024): the lowest bucket with a count, a colon, then the counts of the
 * buckets from it up, comma-separated, an empty field for 0 (`172:3,,,,,,,,1` is 3 in bucket 172 and 1 in 180;
 * "" is the empty histogram). The buckets of a latency distribution are mostly occupied between its lowest and
 * highest, so this is about a third of the JSON object of bucket index → count stored before (`{"172":3,"180":1}`),
 * and at most one character per bucket in between when they are not: never more than the ~940 buckets of the
 * longest latency. Adding two histograms is adding counts per bucket, which the databases do on write with
 * `pharos_histogram_add` (registered on SQLite connections, a SQL function on PostgreSQL:
 * migrations/histogram-add.ts), so concurrent writers never lose a count.
 *
 * Reading is the hot loop of a metrics query (thousands of stored histograms merged per request), so stored
 * texts are not parsed generically: `addHistogramText` scans the digits into a dense array of counts (bucket
 * indexes are small integers: 0 for 1 ms, 542 for 30 days), which also reads several texts joined by any
 * separator but a digit, comma or colon (the queries' `group_concat` / `string_agg`). It still reads the JSON
 * texts stored before migration 0024, which converts them with it.
 */

/** The stated bound of the relative error of a percentile (the spec's "within 2 %"). */
export const RELATIVE_ERROR = 0.02;
const GAMMA = (1 + RELATIVE_ERROR) / (1 - RELATIVE_ERROR);
const LOG_GAMMA = Math.log(GAMMA);

/**
 * Counts by bucket index, dense (`counts[i]` is bucket i), with the range of indexes holding any. Bucket indexes
 * stay small (1 ms is 0, a day 457, the longest JavaScript date range under 940): the array grows to the
 * highest index counted. `clear` empties it for reuse (a query reads thousands of stored histograms through one).
 */
export class Histogram {
  counts = new Float64Array(0);
  low = Number.POSITIVE_INFINITY;
  high = -1;
  total = 0;

  add(bucket: number, count: number): void {
    if (bucket >= this.counts.length) this.grow(bucket);
    this.counts[bucket] = (this.counts[bucket] as number) + count;
    this.total += count;
    if (bucket < this.low) this.low = bucket;
    if (bucket > this.high) this.high = bucket;
  }

  /** Makes room for `bucket`. */
  grow(bucket: number): void {
    const grown = new Float64Array(Math.max(bucket + 64, this.counts.length * 2));
    grown.set(this.counts);
    this.counts = grown;
  }

  clear(): void {
    if (this.high >= 0) this.counts.fill(0, this.low, this.high + 1);
    this.low = Number.POSITIVE_INFINITY;
    this.high = -1;
    this.total = 0;
  }
}

export const emptyHistogram = (): Histogram => new Histogram();

/**
 * The counts of a write's deltas (a few spans per key): bucket → count, kept inline while there is one bucket
 * and in a Map beyond. A dense `Histogram` costs a Float64Array of the highest bucket's size, allocated off the
 * heap: for every key of every write, that was most of what building the deltas cost.
 */
export class DeltaHistogram {
  private bucket = -1;
  private count = 0;
  private more: Map<number, number> | undefined;

  add(bucket: number, count: number): void {
    if (this.more) this.more.set(bucket, (this.more.get(bucket) ?? 0) + count);
    else if (this.bucket === bucket || this.bucket < 0) {
      this.bucket = bucket;
      this.count += count;
    } else
      this.more = new Map([
        [this.bucket, this.count],
        [bucket, count],
      ]);
  }

  /** As stored (`histogramToText`'s format). */
  toText(): string {
    if (!this.more) return this.bucket < 0 || this.count === 0 ? "" : `${this.bucket}:${this.count}`;
    const buckets = [...this.more.keys()].filter((bucket) => this.more?.get(bucket) !== 0).sort((a, b) => a - b);
    if (buckets.length === 0) return "";
    let text = `${buckets[0]}:`;
    let previous = buckets[0] as number;
    for (const bucket of buckets) {
      // One field per bucket from the lowest up: an empty field for each bucket between two with counts.
      if (bucket > previous) text += ",".repeat(bucket - previous);
      text += this.more.get(bucket);
      previous = bucket;
    }
    return text;
  }
}

/**
 * One instance for the life of the process (exported so that the module keeps it: nothing reads it). V8's
 * optimized code holds the hidden classes it was specialized on weakly: once no instance of this class was alive
 * (between write batches), a full collection freed its hidden class and threw away the optimized rollup builders
 * with it, which then ran unoptimized until V8 optimized them again; under `pnpm bench`'s collection before
 * every round of (r), every round (ADR 0017).
 */
export const LIVE_DELTA_HISTOGRAM = new DeltaHistogram();

/** Latencies are whole milliseconds, and a span ends after it starts: ≥ 1. Anything less is counted as 1 ms. */
export function bucketOf(latency: number): number {
  return Math.ceil(Math.log(Math.max(latency, 1)) / LOG_GAMMA);
}

/** The value a bucket stands for: within RELATIVE_ERROR of every latency it holds. */
function representativeOf(bucket: number): number {
  return bucket < REPRESENTATIVES.length ? (REPRESENTATIVES[bucket] as number) : representativeValue(bucket);
}

const representativeValue = (bucket: number) => (2 * GAMMA ** bucket) / (GAMMA + 1);
/** Every bucket a JavaScript date range reaches, computed once: a metrics query reads thousands of percentiles. */
const REPRESENTATIVES = Float64Array.from({ length: 1_024 }, (_, bucket) => representativeValue(bucket));

export function addLatency(histogram: Histogram, latency: number, count = 1): void {
  histogram.add(bucketOf(latency), count);
}

/** Adds `from` into `into`. */
export function addHistogram(into: Histogram, from: Histogram): void {
  if (from.total === 0) return;
  if (from.high >= into.counts.length) into.grow(from.high);
  const target = into.counts;
  const source = from.counts;
  for (let bucket = from.low; bucket <= from.high; bucket++)
    target[bucket] = (target[bucket] as number) + (source[bucket] as number);
  if (from.low < into.low) into.low = from.low;
  if (from.high > into.high) into.high = from.high;
  into.total += from.total;
}

export function histogramToText(histogram: Histogram): string {
  const { counts } = histogram;
  // From the lowest to the highest bucket whose count is not 0 (counts added to 0 when spans moved out).
  let low = histogram.low;
  let high = histogram.high;
  while (low <= high && counts[low] === 0) low++;
  while (high >= low && counts[high] === 0) high--;
  if (high < low) return "";
  let text = `${low}:`;
  for (let bucket = low; bucket <= high; bucket++) {
    const count = counts[bucket] as number;
    if (bucket > low) text += ",";
    if (count !== 0) text += count;
  }
  return text;
}

const ZERO = 48;
const NINE = 57;
const COMMA = 44;
const MINUS = 45;
const OPEN_BRACE = 123;

/**
 * Adds the histogram(s) stored as `text` into `into`: compact texts, one or several joined by a separator, or
 * JSON texts of before migration 0024. Bucket indexes are never negative (latencies are ≥ 1 ms); a count is
 * negative in the delta of a write that moves spans out of a trace-side dimension value (rollups.ts
 * `audienceRollupRows`).
 */
export function addHistogramText(into: Histogram | DeltaHistogram, text: string): void {
  if (text.charCodeAt(0) === OPEN_BRACE) {
    addJsonHistogramText(into, text);
    return;
  }
  const length = text.length;
  let at = 0;
  while (at < length) {
    let code = text.charCodeAt(at);
    // A separator, or where an empty histogram was joined.
    if (code < ZERO || code > NINE) {
      at++;
      continue;
    }
    let bucket = 0;
    while (code >= ZERO && code <= NINE) {
      bucket = bucket * 10 + (code - ZERO);
      code = text.charCodeAt(++at);
    }
    // Past the colon: counts from the lowest bucket up, until a separator or the end (NaN: no digit, no comma).
    at++;
    let count = 0;
    let sign = 1;
    for (;;) {
      code = text.charCodeAt(at);
      if (code >= ZERO && code <= NINE) {
        count = count * 10 + (code - ZERO);
        at++;
        continue;
      }
      if (code === MINUS && count === 0) {
        sign = -1;
        at++;
        continue;
      }
      if (count !== 0) into.add(bucket, sign * count);
      if (code !== COMMA) break;
      bucket++;
      count = 0;
      sign = 1;
      at++;
    }
  }
}

/** The JSON texts of before migration 0024 (`{"172":3,"180":1}`): their integers, read in pairs (bucket, count). */
function addJsonHistogramText(into: Histogram | DeltaHistogram, text: string): void {
  let number = -1;
  let bucket = -1;
  let negative = false;
  for (let at = 0; at <= text.length; at++) {
    const code = at < text.length ? text.charCodeAt(at) : 0;
    if (code >= ZERO && code <= NINE) {
      number = (number < 0 ? 0 : number * 10) + (code - ZERO);
    } else if (number >= 0) {
      if (bucket < 0) bucket = number;
      else {
        into.add(bucket, negative ? -number : number);
        bucket = -1;
      }
      number = -1;
      negative = false;
    } else negative = code === MINUS;
  }
}

/** The sum of two stored histograms, as stored: what `pharos_histogram_add` computes on SQLite (either may be JSON). */
export function addHistogramTexts(a: string, b: string): string {
  const sum = emptyHistogram();
  addHistogramText(sum, a);
  addHistogramText(sum, b);
  return histogramToText(sum);
}

/**
 * The nearest-rank percentiles (`quantiles` in (0, 1]): the value at rank ceil(q·n) of the n counted, as
 * its bucket's value; null when nothing was counted. One pass over the buckets when the quantiles ascend.
 */
export function percentiles(histogram: Histogram, quantiles: readonly number[]): (number | null)[] {
  const { counts, low, high, total } = histogram;
  const read: (number | null)[] = new Array(quantiles.length).fill(null);
  if (total === 0) return read;
  let bucket = low;
  let seen = counts[low] as number;
  for (let index = 0; index < quantiles.length; index++) {
    const rank = Math.max(1, Math.ceil((quantiles[index] as number) * total));
    if (index > 0 && rank < Math.max(1, Math.ceil((quantiles[index - 1] as number) * total))) {
      bucket = low;
      seen = counts[low] as number;
    }
    while (seen < rank && bucket < high) seen += counts[++bucket] as number;
    read[index] = representativeOf(bucket);
  }
  return read;
}
