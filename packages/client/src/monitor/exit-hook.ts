/**
 * Calls `handler` when a Node-like process is about to exit (`beforeExit`: the event loop ran empty), so entries
 * still buffered are sent. Only where a `process` with `on`/`off` exists: browsers and edge runtimes have none,
 * and the main entry must not import anything Node-only. Returns the function that unregisters it.
 */
interface ProcessLike {
  on?: (event: "beforeExit", listener: () => void) => unknown;
  off?: (event: "beforeExit", listener: () => void) => unknown;
}

export function onBeforeExit(handler: () => void): () => void {
  const proc = (globalThis as { process?: ProcessLike }).process;
  if (typeof proc?.on !== "function" || typeof proc.off !== "function") return () => {};
  proc.on("beforeExit", handler);
  return () => proc.off?.("beforeExit", handler);
}
