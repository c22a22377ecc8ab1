/**
 * API keys: `phk_<ULID>_<secret>`. The ULID names the stored key row (`apikey_<ULID>`); only a SHA-256 of
 * the secret is stored, compared in constant time. The full key is shown once, when created.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

const KEY_FORMAT = /^phk_([0-9A-HJKMNP-TV-Z]{26})_([A-Za-z0-9_-]{43})$/;

export interface IssuedKey {
  id: string;
  /** The secret part, to be shown once and never stored. */
  key: string;
  secretHash: string;
}

export const hashSecret = (secret: string) => createHash("sha256").update(secret).digest("hex");

/** A new key for the row id `apikey_<ULID>`. */
export function issueKey(id: string): IssuedKey {
  const secret = randomBytes(32).toString("base64url");
  return { id, key: `phk_${id.replace(/^apikey_/, "")}_${secret}`, secretHash: hashSecret(secret) };
}

/** Splits a presented key into its row id and secret, or undefined when it is not a Pharos key. */
export function parseKey(key: string): { id: string; secret: string } | undefined {
  const match = KEY_FORMAT.exec(key);
  return match ? { id: `apikey_${match[1]}`, secret: match[2] as string } : undefined;
}

/**
 * A presented key in the form it is stored — its row id and the hash of its secret — or undefined when it is
 * not a Pharos key. Used to install an operator-chosen key (PHAROS_BOOTSTRAP_API_KEY).
 */
export function storedFormOfKey(key: string): { id: string; secretHash: string } | undefined {
  const parsed = parseKey(key);
  return parsed && { id: parsed.id, secretHash: hashSecret(parsed.secret) };
}

export function secretMatches(secret: string, storedHash: string): boolean {
  const presented = Buffer.from(hashSecret(secret), "hex");
  const stored = Buffer.from(storedHash, "hex");
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
