/**
 * Mergeable latency histograms with log-spaced buckets (the DDSketch mapping): a latency x > 0 falls in bucket
 * i = ceil(log_γ x), which holds (γ^(i−1), γ^i]; the bucket is represented by 2γ^i / (γ + 1), within
 * RELATIVE_ERROR of every value in it. A percentile read from the histogram is therefore within RELATIVE_ERROR
 * (relative) of the exact nearest-rank percentile of the values counted, however many histograms were merged.
 *
 * Stored as JSON text, an object of bucket index → count (`{"172":3,"180":1}`): adding two histograms is
 * adding counts per key, which the databases do on write with `pharos_histogram_add` (registered on SQLite
 * connections, a SQL function on PostgreSQL: migration 0013), so concurrent writers never lose a count.
 */

/** The stated bound of the relative error of a percentile (the spec's "within 2 %"). */
export const RELATIVE_ERROR = 0.02;
const GAMMA = (1 + RELATIVE_ERROR) / (1 - RELATIVE_ERROR);
const LOG_GAMMA = Math.log(GAMMA);

/** Bucket index → count. */
export type Histogram = Map<number, number>;

/** Latencies are whole milliseconds, and a span ends after it starts: ≥ 1. Anything less is counted as 1 ms. */
export function bucketOf(latency: number): number {
  return Math.ceil(Math.log(Math.max(latency, 1)) / LOG_GAMMA);
}

/** The value a bucket stands for: within RELATIVE_ERROR of every latency it holds. */
function representativeOf(bucket: number): number {
  return (2 * GAMMA ** bucket) / (GAMMA + 1);
}

export function addLatency(histogram: Histogram, latency: number, count = 1): void {
  const bucket = bucketOf(latency);
  histogram.set(bucket, (histogram.get(bucket) ?? 0) + count);
}

export function histogramToText(histogram: Histogram): string {
  let text = "";
  for (const [bucket, count] of histogram) text += `${text === "" ? "" : ","}"${bucket}":${count}`;
  return `{${text}}`;
}

/** Adds the histogram stored as `text` into `into`. */
export function mergeHistogramText(into: Histogram, text: string): void {
  const counts = JSON.parse(text) as Record<string, number>;
  for (const key in counts) {
    const bucket = Number(key);
    into.set(bucket, (into.get(bucket) ?? 0) + (counts[key] as number));
  }
}

/** The sum of two stored histograms, as stored: what `pharos_histogram_add` computes on SQLite. */
export function addHistogramTexts(a: string, b: string): string {
  const sum: Histogram = new Map();
  mergeHistogramText(sum, a);
  mergeHistogramText(sum, b);
  return histogramToText(sum);
}

/**
 * The nearest-rank percentiles (`quantiles` in (0, 1]): the value at rank ceil(q·n) of the n counted, as
 * its bucket's value; null when nothing was counted.
 */
export function percentiles(histogram: Histogram, quantiles: readonly number[]): (number | null)[] {
  let total = 0;
  for (const count of histogram.values()) total += count;
  if (total === 0) return quantiles.map(() => null);
  const buckets = [...histogram.keys()].sort((a, b) => a - b);
  return quantiles.map((quantile) => {
    const rank = Math.max(1, Math.ceil(quantile * total));
    let seen = 0;
    for (const bucket of buckets) {
      seen += histogram.get(bucket) as number;
      if (seen >= rank) return representativeOf(bucket);
    }
    return representativeOf(buckets[buckets.length - 1] as number);
  });
}
