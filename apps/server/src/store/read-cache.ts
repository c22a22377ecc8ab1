/**
 * Memoized reads for the request hot paths — the API key behind every request, the deployment an application
 * fetches at run time — of records that change rarely. Whatever process changes them (another replica, the
 * CLI), its transaction bumps the database's cache generation (migration 0007). A request reads the generation
 * once, when it begins, and uses only what was cached under that same generation: a cached answer is never
 * older than the request itself, as if it had been read from the database then.
 */

/** One request's view of the cache, fixed to the generation it read. Values are shared: never mutate them. */
export interface CachedReads {
  /**
   * What `load` returns, from the cache when it was loaded under this generation. `undefined` is not cached,
   * nor is a `load` that throws. Not for reads inside a transaction, which must see the transaction's writes.
   */
  get<T>(key: string, load: () => Promise<T>): Promise<T>;
}

export interface ReadCacheLimits {
  /** Entries kept at most; the least recently used goes first. */
  maxEntries: number;
  /**
   * Size kept at most, as the JSON text of the values: a deployment's prompt can be megabytes, so a count
   * alone would not bound the memory. A value over an eighth of it is not kept.
   */
  maxBytes: number;
}

export const DEFAULT_READ_CACHE_LIMITS: ReadCacheLimits = { maxEntries: 10_000, maxBytes: 16 * 1024 * 1024 };

interface Entry {
  value: unknown;
  bytes: number;
}

export class ReadCache {
  /** For tests and benchmarks; never served over HTTP. */
  readonly stats = { hits: 0, misses: 0 };
  readonly limits: ReadCacheLimits;
  #generation = Number.NEGATIVE_INFINITY;
  /** In order of use, least recent first. */
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;

  constructor(
    private readonly readGeneration: () => Promise<number>,
    limits: Partial<ReadCacheLimits> = {},
  ) {
    this.limits = { ...DEFAULT_READ_CACHE_LIMITS, ...limits };
  }

  async begin(): Promise<CachedReads> {
    const generation = await this.readGeneration();
    // A lower generation means the database was restored from a backup (or a read overtook a slower one): the
    // numbers after it may come again with other contents, so what was cached under them must go too.
    if (generation !== this.#generation) {
      this.#generation = generation;
      this.#entries.clear();
      this.#bytes = 0;
    }
    return { get: (key, load) => this.#get(generation, key, load) };
  }

  async #get<T>(generation: number, key: string, load: () => Promise<T>): Promise<T> {
    const entry = generation === this.#generation ? this.#entries.get(key) : undefined;
    if (entry) {
      this.stats.hits++;
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      return entry.value as T;
    }
    this.stats.misses++;
    const value = await load();
    // A request that began before a change another one has already seen must not store what it read.
    if (value !== undefined && generation === this.#generation) this.#keep(key, value);
    return value;
  }

  #keep(key: string, value: unknown): void {
    // Measured once, when loaded: misses are rare, as the cached records change at the pace of people.
    const bytes = JSON.stringify(value).length;
    if (bytes > this.limits.maxBytes / 8) return;
    const replaced = this.#entries.get(key);
    if (replaced) {
      this.#entries.delete(key);
      this.#bytes -= replaced.bytes;
    }
    this.#entries.set(key, { value, bytes });
    this.#bytes += bytes;
    for (const [oldest, { bytes: freed }] of this.#entries) {
      if (this.#entries.size <= this.limits.maxEntries && this.#bytes <= this.limits.maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= freed;
    }
  }
}
