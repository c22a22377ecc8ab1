/**
 * Reference ids for traces and spans: 96 random bits drawn once per monitor, then a counter. Trace reference ids
 * must be unique in the project across every process that logs to it (a repeat is 409); one random draw per
 * monitor keeps the per-span cost to a string concatenation.
 */
export function referenceIdGenerator(): () => string {
  let prefix = "";
  for (const byte of crypto.getRandomValues(new Uint8Array(12))) prefix += byte.toString(16).padStart(2, "0");
  let next = 0;
  return () => `${prefix}-${(next++).toString(36)}`;
}
