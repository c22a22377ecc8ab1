/**
 * JSON representations with entity tags, for conditional reads (RFC 9110 sections 8.8.3 and 13.1.2), and the
 * `If-None-Match` test. A body the read cache hands out again is the same object, so its JSON text and its tag
 * are computed once, not per request.
 */
import { createHash } from "node:crypto";

export interface Representation {
  /** The body's JSON text, as `c.json` would send it. */
  json: string;
  /** Its strong entity tag: a SHA-256 of the text, base64url, quoted. */
  tag: string;
}

const representations = new WeakMap<object, Representation>();

export function representationOf(body: object): Representation {
  let representation = representations.get(body);
  if (representation === undefined) {
    const json = JSON.stringify(body);
    representation = { json, tag: `"${createHash("sha256").update(json).digest("base64url")}"` };
    representations.set(body, representation);
  }
  return representation;
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
