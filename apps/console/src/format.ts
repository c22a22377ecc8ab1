/** How numbers read on screen. */
export const formatTime = (ms: number) => new Date(ms).toISOString().replace("T", " ").slice(0, 19);
export const formatLatency = (ms: number) => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(2)} s`);
export const formatCost = (usd: number | null) => (usd === null ? "–" : `$${usd.toFixed(6)}`);
export const formatTokens = (count: number | null) => (count === null ? "–" : count.toLocaleString("en-US"));
