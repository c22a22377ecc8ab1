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

export class ReadCache {
  /** For tests and benchmarks; never served over HTTP. */
  readonly stats = { hits: 0, misses: 0 };
  #generation = Number.NEGATIVE_INFINITY;
  readonly #entries = new Map<string, unknown>();

  constructor(
    private readonly readGeneration: () => Promise<number>,
    private readonly maxEntries = 10_000,
  ) {}

  async begin(): Promise<CachedReads> {
    const generation = await this.readGeneration();
    if (generation > this.#generation) {
      this.#generation = generation;
      this.#entries.clear();
    }
    return { get: (key, load) => this.#get(generation, key, load) };
  }

  async #get<T>(generation: number, key: string, load: () => Promise<T>): Promise<T> {
    if (generation === this.#generation && this.#entries.has(key)) {
      this.stats.hits++;
      return this.#entries.get(key) as T;
    }
    this.stats.misses++;
    const value = await load();
    // A request that began before a change another one has already seen must not store what it read.
    if (value !== undefined && generation === this.#generation) {
      if (this.#entries.size >= this.maxEntries) this.#entries.delete(this.#entries.keys().next().value as string);
      this.#entries.set(key, value);
    }
    return value;
  }
}
