/**
 * Entity tags for conditional reads (RFC 9110 sections 8.8.3 and 13.1.2): a strong tag of a JSON body and the
 * `If-None-Match` test. A body the read cache hands out again is the same object, so its tag is computed once.
 */
import { createHash } from "node:crypto";

const tags = new WeakMap<object, string>();

/** The strong tag of `body` as `c.json` sends it: a SHA-256 of its JSON text, base64url, quoted. */
export function entityTagOf(body: object): string {
  let tag = tags.get(body);
  if (tag === undefined) {
    tag = `"${createHash("sha256").update(JSON.stringify(body)).digest("base64url")}"`;
    tags.set(body, tag);
  }
  return tag;
}

/** An entity-tag of a list: optional weakness prefix, then a quoted opaque tag (RFC 9110 section 8.8.3). */
const LISTED_TAG = /(?:W\/)?("[\x21\x23-\x7e\x80-\xff]*")/g;

/**
 * Whether `If-None-Match` holds for the current representation, so the answer is 304: the header is `*`, or one
 * of its tags equals `tag` by the weak comparison the RFC prescribes for this header (`W/"x"` matches `"x"`).
 * A header that lists nothing well-formed matches nothing.
 */
export function noneMatchHolds(header: string | undefined, tag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === "*") return true;
  for (const [, opaque] of header.matchAll(LISTED_TAG)) {
    if (opaque === tag) return true;
  }
  return false;
}
