/**
 * Size limits of free maps (`maxProperties`, `minProperties`, key length), which hono-takibi 0.9.995 drops from
 * `z.record` schemas. scripts/hono-takibi-patches.ts attaches this refinement to each of them.
 */
export interface RecordLimits {
  maxProperties?: number;
  minProperties?: number;
  propertyNames?: { minLength?: number; maxLength?: number };
}

export function recordWithin(limits: RecordLimits): [(value: unknown) => boolean, { message: string }] {
  const { maxProperties = Number.POSITIVE_INFINITY, minProperties = 0, propertyNames = {} } = limits;
  const { minLength = 0, maxLength = Number.POSITIVE_INFINITY } = propertyNames;
  const rules = [
    limits.minProperties !== undefined && `at least ${minProperties} keys`,
    limits.maxProperties !== undefined && `at most ${maxProperties} keys`,
    (propertyNames.minLength ?? propertyNames.maxLength) !== undefined &&
      `keys of ${minLength} to ${Number.isFinite(maxLength) ? maxLength : "any"} characters`,
  ].filter(Boolean);
  const check = (value: unknown) => {
    if (value === undefined || value === null || typeof value !== "object") return true;
    const keys = Object.keys(value);
    return (
      keys.length <= maxProperties &&
      keys.length >= minProperties &&
      keys.every((key) => key.length >= minLength && key.length <= maxLength)
    );
  };
  return [check, { message: `must have ${rules.join(", ")}` }];
}
