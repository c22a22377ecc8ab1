/** The monitor's counters and last error: what `monitor.status()` reports and `onError` hears about. */

export interface MonitorError {
  message: string;
  /** The HTTP status, when the server answered. */
  status?: number;
  /** The spec's error code, when the answer carried one. */
  code?: string;
  /** Unix ms. */
  at: number;
}

export interface MonitorStatus {
  /** Entries (traces and spans) ended and not yet settled: waiting, backing off or in flight. */
  buffered: number;
  /** Entries the server acknowledged (stored). */
  sent: number;
  /** Entries never sent: buffer overflow (oldest first), over an API limit, or left at shutdown. */
  dropped: number;
  /** Entries the server refused (a 4xx other than 429); not retried. */
  failed: number;
  lastError: MonitorError | null;
  /** True once shutdown() began: entries ended from then on are dropped. */
  closed: boolean;
}

export class Ledger {
  sent = 0;
  dropped = 0;
  failed = 0;
  lastError: MonitorError | null = null;
  readonly #onError: ((error: MonitorError) => void) | undefined;

  constructor(onError?: (error: MonitorError) => void) {
    this.#onError = onError;
  }

  delivered(count: number): void {
    this.sent += count;
  }

  drop(count: number, message: string): void {
    this.dropped += count;
    this.error({ message, at: Date.now() });
  }

  fail(count: number, error: MonitorError): void {
    this.failed += count;
    this.error(error);
  }

  /** Records an error; the application's callback may throw, which must not reach the monitor's caller. */
  error(error: MonitorError): void {
    this.lastError = error;
    try {
      this.#onError?.(error);
    } catch {
      // onError is the application's; its failure is not the monitor's to report.
    }
  }
}
