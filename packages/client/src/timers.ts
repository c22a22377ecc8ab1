/**
 * Lets a background timer not keep a Node process alive (`unref`), where timers have that; browsers and edge
 * runtimes return a number, which has no such method, and their timers never hold a process open.
 */
export function unrefTimer(timer: unknown): void {
  (timer as { unref?: () => void } | undefined)?.unref?.();
}
