/**
 * A small deterministic generator (mulberry32) for property tests over random data, so that a failing case can be
 * replayed from its seed.
 */
export function seededRandom(seed: number) {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return {
    next,
    int: (below: number) => Math.floor(next() * below),
    pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T,
    /** Each item with probability 0.4. */
    some: <T>(items: readonly T[]) => items.filter(() => next() < 0.4),
  };
}
