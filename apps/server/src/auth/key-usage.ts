/**
 * When each API key was last used, to the minute: written at most once a minute per key, by this process (it
 * remembers what it wrote) and across processes (the write only moves a time older than a minute). The write
 * is not awaited by the request that triggers it: a request never waits for this bookkeeping.
 */
import type { Store } from "../store/store.ts";

const MINUTE = 60_000;

export class KeyUsage {
  /** The last time written per key id, by this process. */
  private readonly written = new Map<string, number>();

  constructor(private readonly store: Store) {}

  /** Marks `keyId` used at `now`; a failed write is handed to `onError` (the key works regardless). */
  record(keyId: string, now: number, onError: (error: unknown) => void): void {
    const last = this.written.get(keyId);
    if (last !== undefined && now - last < MINUTE) return;
    this.written.set(keyId, now);
    this.store.db
      .insertInto("apiKeyUsage")
      .values({ keyId, lastUsedAt: now })
      .onConflict((oc) =>
        oc
          .column("keyId")
          .doUpdateSet({ lastUsedAt: now })
          .where("apiKeyUsage.lastUsedAt", "<=", now - MINUTE),
      )
      .execute()
      .catch((error: unknown) => {
        this.written.delete(keyId);
        onError(error);
      });
  }
}
