/**
 * Ids in the product's form (`trace_<ULID>`: 10 characters of time, 16 of entropy), made without a random draw
 * per id: the entropy is a random run prefix and a counter. Cheap enough for seeding a million rows (ulidx
 * draws fresh random bytes for each new millisecond, a third of the seeding time) and for the ceiling server.
 */
import { randomBytes } from "node:crypto";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

export function idMaker(): (kind: string, time?: number) => string {
  const run = Array.from(randomBytes(6), (byte) => CROCKFORD[byte % 32]).join("");
  let counter = 0;
  return (kind, time = Date.now()) => {
    let encoded = "";
    for (let i = 0, t = time; i < 10; i++, t = Math.floor(t / 32)) encoded = CROCKFORD[t % 32] + encoded;
    let count = "";
    for (let i = 0, c = counter++; i < 10; i++, c = Math.floor(c / 32)) count = CROCKFORD[c % 32] + count;
    return `${kind}_${encoded}${run}${count}`;
  };
}
