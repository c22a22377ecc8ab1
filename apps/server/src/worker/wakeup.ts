/**
 * How a background loop (the evaluation worker, the webhook deliverer) sleeps between passes: until woken or
 * until its poll interval passes. A wake-up that comes while the loop is busy is kept, so the next wait
 * returns at once and no work announced in between waits for the next poll.
 */
export class Wakeup {
  #waiter: (() => void) | undefined;
  #pending = false;

  wake(): void {
    if (this.#waiter) this.#waiter();
    else this.#pending = true;
  }

  /** Resolves at the next wake-up (at once if one came since the last wait), or after `timeoutMs`. */
  wait(timeoutMs?: number): Promise<void> {
    if (this.#pending) {
      this.#pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = timeoutMs === undefined ? undefined : setTimeout(() => this.#waiter?.(), timeoutMs);
      this.#waiter = () => {
        clearTimeout(timer);
        this.#waiter = undefined;
        resolve();
      };
    });
  }
}
