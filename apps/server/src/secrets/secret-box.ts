/**
 * Encryption of secrets at rest (provider credentials): AES-256-GCM, a random 96-bit nonce per value, so equal
 * secrets never look alike and any change to a sealed value is detected when it is opened. Sealed form:
 * `v1.<nonce>.<ciphertext>.<tag>`, each part base64url; the version prefix leaves room for key rotation.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../store/schema.ts";

export const SECRET_KEY_BYTES = 32;
const VERSION = "v1";

export interface SecretBox {
  seal(plaintext: string): string;
  /** Throws when the value was sealed with another key or altered. */
  open(sealed: string): string;
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== SECRET_KEY_BYTES) throw new Error(`A secret key is ${SECRET_KEY_BYTES} bytes, not ${key.length}`);
  return {
    seal(plaintext) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, nonce);
      const sealed = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return [VERSION, nonce, sealed, cipher.getAuthTag()]
        .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
        .join(".");
    },
    open(sealed) {
      const [version, nonce, data, tag] = sealed.split(".");
      if (version !== VERSION || nonce === undefined || data === undefined || tag === undefined) {
        throw new Error("Not a sealed secret");
      }
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(nonce, "base64url"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
    },
  };
}

const CHECK_SETTING = "secretKeyCheck";
const CHECK_TEXT = "pharos";

/**
 * Fails at start, with a message, when the key is not the one the database's secrets were sealed with (a
 * changed PHAROS_SECRET_KEY, a replica configured differently), instead of failing each later call.
 */
export async function verifySecretKey(db: Kysely<Database>, box: SecretBox): Promise<void> {
  await db
    .insertInto("settings")
    .values({ key: CHECK_SETTING, value: box.seal(CHECK_TEXT) })
    .onConflict((oc) => oc.column("key").doNothing())
    .execute();
  const row = await db
    .selectFrom("settings")
    .select("value")
    .where("key", "=", CHECK_SETTING)
    .executeTakeFirstOrThrow();
  let opened: string | undefined;
  try {
    opened = box.open(row.value);
  } catch {
    opened = undefined;
  }
  if (opened !== CHECK_TEXT) {
    throw new Error(
      "The secret key is not the one this database's provider credentials were sealed with: set PHAROS_SECRET_KEY to that key.",
    );
  }
}
