/**
 * `initLatestDeployment`: the deployed prompt an application reads on its hot path, from memory. A background
 * loop revalidates it with `If-None-Match` (a 304 costs a header round trip; a server without ETags answers 200
 * every time, which works too). A failed refresh keeps serving the last good deployment and shows in `status()`;
 * `refresh()` asks at once, e.g. when a signed webhook says a new deployment exists.
 */
import type { PharosClient } from "./client.ts";
import { PharosApiError } from "./errors.ts";
import { unrefTimer } from "./timers.ts";
import type { Deployment } from "./types.ts";

/** The bounds of `refreshIntervalMs`: polling faster costs the server, slower leaves a prompt stale too long. */
export const MIN_REFRESH_INTERVAL_MS = 1_000;
export const MAX_REFRESH_INTERVAL_MS = 600_000;

export interface LatestDeploymentOptions {
  promptId: string;
  deploymentEnvironmentId: string;
  /** How often to revalidate, in ms, clamped to 1 s…10 min. Default 60,000. */
  refreshIntervalMs?: number;
  /** Served when the very first fetch fails, until a refresh succeeds. Without it, that failure rejects. */
  fallback?: Deployment;
  /**
   * Lowers the 1 s floor of `refreshIntervalMs`. For tests only, which should not wait seconds for a refresh; a
   * production application has no reason to poll faster.
   */
  minRefreshIntervalMs?: number;
}

export interface DeploymentCacheStatus {
  /** True after stop(). */
  stopped: boolean;
  /** Failed refreshes since the last one that succeeded. */
  consecutiveFailures: number;
  lastError: Error | null;
  /** Unix ms of the last successful fetch or revalidation; null while only the fallback was served. */
  lastRefreshed: number | null;
  /** Where `get()` answers from: the server's deployment, or the fallback. */
  source: "server" | "fallback";
  /** The interval in force, after clamping. */
  refreshIntervalMs: number;
}

export interface LatestDeployment {
  /** The deployment, from memory. Frozen: copy it to change it. */
  get(): Deployment;
  /** Revalidates now (one request at a time: a call during a refresh shares it). Never rejects. */
  refresh(): Promise<void>;
  status(): DeploymentCacheStatus;
  /** Stops the background loop; get() keeps answering the last deployment. */
  stop(): void;
}

export async function initLatestDeployment(
  client: PharosClient,
  options: LatestDeploymentOptions,
): Promise<LatestDeployment> {
  const cache = new DeploymentCache(client, options);
  await cache.start();
  return cache;
}

class DeploymentCache implements LatestDeployment {
  readonly #client: PharosClient;
  readonly #options: LatestDeploymentOptions;
  readonly #intervalMs: number;
  #deployment: Deployment | undefined;
  #etag: string | null = null;
  #source: "server" | "fallback" = "server";
  #stopped = false;
  #consecutiveFailures = 0;
  #lastError: Error | null = null;
  #lastRefreshed: number | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #inFlight: Promise<void> | undefined;

  constructor(client: PharosClient, options: LatestDeploymentOptions) {
    this.#client = client;
    this.#options = options;
    const floor = options.minRefreshIntervalMs ?? MIN_REFRESH_INTERVAL_MS;
    const wanted = options.refreshIntervalMs ?? 60_000;
    this.#intervalMs = Math.min(MAX_REFRESH_INTERVAL_MS, Math.max(floor, wanted));
  }

  async start(): Promise<void> {
    try {
      await this.#fetch();
    } catch (error) {
      if (this.#options.fallback === undefined) throw error;
      this.#deployment = deepFreeze(structuredClone(this.#options.fallback));
      this.#source = "fallback";
      this.#failed(error);
    }
    this.#schedule();
  }

  get(): Deployment {
    return this.#deployment as Deployment;
  }

  refresh(): Promise<void> {
    this.#inFlight ??= this.#fetch()
      .catch((error: unknown) => this.#failed(error))
      .finally(() => {
        this.#inFlight = undefined;
      });
    return this.#inFlight;
  }

  status(): DeploymentCacheStatus {
    return {
      stopped: this.#stopped,
      consecutiveFailures: this.#consecutiveFailures,
      lastError: this.#lastError,
      lastRefreshed: this.#lastRefreshed,
      source: this.#source,
      refreshIntervalMs: this.#intervalMs,
    };
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      void this.refresh().then(() => this.#schedule());
    }, this.#intervalMs);
    unrefTimer(this.#timer);
  }

  /** One GET /deployments: 200 replaces the deployment, 304 confirms it; anything else throws. */
  async #fetch(): Promise<void> {
    const { promptId, deploymentEnvironmentId } = this.#options;
    const result = await this.#client.GET("/deployments", {
      params: { query: { promptId, deploymentId: "latest", deploymentEnvironmentId } },
      headers: this.#etag !== null && this.#source === "server" ? { "If-None-Match": this.#etag } : {},
    });
    const { response } = result;
    if (response.status === 304 && this.#deployment !== undefined) {
      this.#succeeded();
      return;
    }
    if (response.status !== 200 || result.data === undefined) throw new PharosApiError(response, result.error);
    this.#deployment = deepFreeze(result.data);
    this.#etag = response.headers.get("ETag");
    this.#source = "server";
    this.#succeeded();
  }

  #succeeded(): void {
    this.#consecutiveFailures = 0;
    this.#lastError = null;
    this.#lastRefreshed = Date.now();
  }

  #failed(error: unknown): void {
    this.#consecutiveFailures++;
    this.#lastError = error instanceof Error ? error : new Error(String(error));
  }
}

/** Freezes a JSON value and everything in it, so that no caller can change what the others are served. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
