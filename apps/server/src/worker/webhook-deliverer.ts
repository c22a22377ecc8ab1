/**
 * The webhook deliverer (ADR 0011): a loop in every server process that claims due deliveries from the outbox
 * (`webhookDeliveries`), POSTs each signed event to its endpoint and records the attempt. A claim moves the
 * delivery's `nextAttemptAt` past the attempt's timeout, in a transaction that skips rows other replicas are
 * claiming (`FOR UPDATE SKIP LOCKED`; SQLite's writers are serialized anyway): no two deliverers attempt one
 * delivery at once, and a deliverer that dies mid-attempt leaves it due again once that lease passes. A
 * receiver can therefore see an event more than once (a crash between its answer and our record of it), never
 * lose one: it deduplicates by `eventId`.
 */
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import pino, { type Logger } from "pino";
import { describeError } from "../config.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import { fromJson } from "../services/json.ts";
import {
  type AttemptSettings,
  attemptDelivery,
  type Backoff,
  DEFAULT_BACKOFF,
  recordAttempt,
  signatureHeader,
  signingSecrets,
} from "../services/webhooks/delivery.ts";
import type { Store } from "../store/store.ts";
import { Wakeup } from "./wakeup.ts";

export interface DelivererOptions extends AttemptSettings {
  store: Store;
  secrets: SecretBox;
  /** Default: silent. */
  logger?: Logger;
  now: () => number;
  /** Deliveries attempted at once. */
  concurrency?: number;
  /** How often an idle deliverer looks for deliveries other processes queued (its own wake it at once). */
  pollMs?: number;
  backoff?: Backoff;
  random?: () => number;
  /** How long settled deliveries (and their events) stay in the delivery log. Default 30 days. */
  retentionMs?: number;
}

const DEFAULT_POLL_MS = 1000;
const DEFAULT_CONCURRENCY = 10;
/** Beyond the attempt's timeout, how long a claim holds before another deliverer may take the delivery. */
const LEASE_MARGIN_MS = 60_000;
const DEFAULT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
/** How often a deliverer prunes the log, and how many rows one statement deletes at most. */
const PRUNE_EVERY_MS = 60 * 60 * 1000;
const PRUNE_BATCH = 1000;

export class WebhookDeliverer {
  readonly id = `deliverer_${randomUUID()}`;
  /** Attempts this deliverer made (for tests and logs). */
  attempted = 0;
  private running: Promise<void> | undefined;
  private stopping = false;
  private readonly wakeup = new Wakeup();
  private readonly inFlight = new Set<Promise<void>>();
  private prunedAt = Number.NEGATIVE_INFINITY;

  private readonly logger: Logger;

  constructor(private readonly options: DelivererOptions) {
    this.logger = options.logger ?? pino({ level: "silent" });
  }

  start(): void {
    this.running ??= this.loop();
  }

  /** Deliveries may be due: look now instead of at the next poll. */
  wake(): void {
    this.wakeup.wake();
  }

  /**
   * Stops claiming and waits up to `graceMs` for the attempts in flight. An attempt cut off stays claimed;
   * its delivery is due again when the claim's lease passes (on the next start, or on another replica).
   */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    this.wake();
    const grace = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
    const settled = (async () => {
      await this.running;
      await Promise.allSettled([...this.inFlight]);
    })();
    await Promise.race([settled, grace]);
  }

  /**
   * One pass: claims every delivery due now (up to the concurrency) and attempts them; resolves when their
   * attempts are recorded. Returns how many it attempted. The loop calls it; tests call it with their clock.
   */
  async deliverDue(): Promise<number> {
    const attempts = await this.startDue();
    await Promise.all(attempts);
    return attempts.length;
  }

  /** Claims deliveries for the free slots and starts their attempts; each frees its slot (and wakes the loop). */
  private async startDue(): Promise<Promise<void>[]> {
    const free = this.concurrency - this.inFlight.size;
    if (free <= 0) return [];
    const claimed = await this.claim(free);
    return claimed.map((id) => {
      const attempt: Promise<void> = this.attempt(id).finally(() => {
        this.inFlight.delete(attempt);
        this.wake();
      });
      this.inFlight.add(attempt);
      return attempt;
    });
  }

  /**
   * Claims while slots are free, without waiting for the attempts in flight: a slow endpoint holds its slot for
   * up to the timeout, not the deliveries to other endpoints.
   */
  private async loop(): Promise<void> {
    while (!this.stopping) {
      let started = 0;
      try {
        started = (await this.startDue()).length;
        if (this.options.now() - this.prunedAt >= PRUNE_EVERY_MS) {
          this.prunedAt = this.options.now();
          await this.prune();
        }
      } catch (error) {
        this.logger.error({ err: error }, "claiming webhook deliveries failed; retrying");
      }
      if (this.stopping) break;
      // Full: wait for an attempt to end. Nothing due: wait for the next poll or a wake-up.
      if (this.inFlight.size >= this.concurrency) await this.wakeup.wait();
      else if (started === 0) await this.wakeup.wait(this.options.pollMs ?? DEFAULT_POLL_MS);
    }
  }

  private get concurrency(): number {
    return this.options.concurrency ?? DEFAULT_CONCURRENCY;
  }

  /** Leases up to `limit` due deliveries, oldest due first. */
  private async claim(limit: number): Promise<string[]> {
    const { store } = this.options;
    const now = this.options.now();
    // A read first: an idle deliverer does not take SQLite's write lock every poll.
    const anyDue = await store.db
      .selectFrom("webhookDeliveries")
      .select("id")
      .where("status", "=", "pending")
      .where("nextAttemptAt", "<=", now)
      .limit(1)
      .executeTakeFirst();
    if (!anyDue) return [];
    return store.transaction(store.db, async (trx) => {
      const due = await store.sql.locks
        .forUpdateSkipLocked(
          trx
            .selectFrom("webhookDeliveries")
            .select("id")
            .where("status", "=", "pending")
            .where("nextAttemptAt", "<=", now)
            .orderBy("nextAttemptAt")
            .limit(limit),
        )
        .execute();
      const ids = due.map((row) => row.id);
      if (ids.length === 0) return [];
      await trx
        .updateTable("webhookDeliveries")
        .set({ nextAttemptAt: now + this.options.timeoutMs + LEASE_MARGIN_MS })
        .where("id", "in", ids)
        .execute();
      return ids;
    });
  }

  private async attempt(deliveryId: string): Promise<void> {
    const { store, secrets } = this.options;
    const { logger } = this;
    try {
      const target = await store.db
        .selectFrom("webhookDeliveries")
        .innerJoin("webhooks", "webhooks.id", "webhookDeliveries.webhookId")
        .innerJoin("webhookEvents", "webhookEvents.id", "webhookDeliveries.eventId")
        .select([
          "webhooks.url",
          "webhooks.headers",
          "webhooks.secret",
          "webhooks.previousSecret",
          "webhooks.previousSecretExpiresAt",
          "webhookEvents.id as eventId",
          "webhookEvents.body",
        ])
        .where("webhookDeliveries.id", "=", deliveryId)
        .executeTakeFirst();
      if (!target) return; // Deleted with its endpoint since the claim.
      const attemptedAt = this.options.now();
      const signature = signatureHeader(target.body, signingSecrets(secrets, target, attemptedAt), attemptedAt);
      const started = performance.now();
      const outcome = await attemptDelivery(
        {
          url: target.url,
          headers: fromJson<Record<string, string>>(target.headers),
          eventId: target.eventId,
          body: target.body,
          signature,
        },
        this.options,
      );
      this.attempted += 1;
      const durationMs = Math.round(performance.now() - started);
      const recorded = await recordAttempt(
        store,
        store.db,
        deliveryId,
        { attemptedAt, durationMs, ...outcome },
        {
          retry: true,
          backoff: this.options.backoff ?? DEFAULT_BACKOFF,
          now: this.options.now(),
          random: this.options.random,
        },
      );
      if (recorded?.status === "failed") {
        logger.warn(
          { deliveryId, eventId: target.eventId, error: outcome.error },
          "a webhook delivery failed for good",
        );
      }
    } catch (error) {
      logger.error({ err: error, deliveryId }, "attempting a webhook delivery failed");
      // Recorded as a failed attempt (a secret sealed with another key, say), so that the backoff and the retry
      // window apply; if even that fails, the claim's lease runs out and the delivery is attempted again.
      const now = this.options.now();
      await recordAttempt(
        store,
        store.db,
        deliveryId,
        {
          attemptedAt: now,
          durationMs: 0,
          statusCode: null,
          error: `Pharos could not send it: ${describeError(error)}`,
        },
        { retry: true, backoff: this.options.backoff ?? DEFAULT_BACKOFF, now, random: this.options.random },
      ).catch((recording) => logger.error({ err: recording, deliveryId }, "recording a failed webhook attempt failed"));
    }
  }

  /**
   * Deletes settled deliveries older than the retention, then the events no delivery refers to any more, in
   * batches (a replica pruning at the same time deletes the same rows: harmless). Returns how many deliveries.
   */
  async prune(): Promise<number> {
    const { store } = this.options;
    const before = this.options.now() - (this.options.retentionMs ?? DEFAULT_RETENTION_MS);
    let deliveries = 0;
    for (;;) {
      const old = store.db
        .selectFrom("webhookDeliveries")
        .select("id")
        .where("status", "!=", "pending")
        .where("updatedAt", "<", before)
        .limit(PRUNE_BATCH);
      const deleted = await store.db.deleteFrom("webhookDeliveries").where("id", "in", old).executeTakeFirst();
      deliveries += Number(deleted.numDeletedRows);
      if (Number(deleted.numDeletedRows) < PRUNE_BATCH) break;
    }
    for (;;) {
      const orphans = store.db
        .selectFrom("webhookEvents")
        .select("webhookEvents.id")
        .where("webhookEvents.createdAt", "<", before)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom("webhookDeliveries")
                .select("webhookDeliveries.id")
                .whereRef("webhookDeliveries.eventId", "=", "webhookEvents.id"),
            ),
          ),
        )
        .limit(PRUNE_BATCH);
      const deleted = await store.db.deleteFrom("webhookEvents").where("id", "in", orphans).executeTakeFirst();
      if (Number(deleted.numDeletedRows) < PRUNE_BATCH) break;
    }
    return deliveries;
  }
}
