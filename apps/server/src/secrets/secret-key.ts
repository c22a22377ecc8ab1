/**
 * Where the secret key comes from: PHAROS_SECRET_KEY (64 hex characters or 32 bytes in base64), or, for the
 * embedded SQLite default only, a key generated once into the data directory beside the database file. With
 * PostgreSQL every server replica and worker must share one key, so it must be configured.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { SECRET_KEY_BYTES } from "./secret-box.ts";

export const SECRET_KEY_FILE = "secret.key";

/** The key from PHAROS_SECRET_KEY's text, or undefined when it is not 32 bytes in hex or base64. */
export function parseSecretKey(text: string): Buffer | undefined {
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, "hex");
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) {
    const key = Buffer.from(text, "base64");
    if (key.length === SECRET_KEY_BYTES) return key;
  }
  return undefined;
}

/** The key in `<dataDirectory>/secret.key`, created (readable by the owner only) when missing. */
export function dataDirectorySecretKey(dataDirectory: string): Buffer {
  const path = join(dataDirectory, SECRET_KEY_FILE);
  if (!existsSync(path)) {
    mkdirSync(dataDirectory, { recursive: true });
    // `wx`: when two processes start at once, the second fails here and reads the first one's key.
    try {
      writeFileSync(path, `${randomBytes(SECRET_KEY_BYTES).toString("hex")}\n`, { mode: 0o600, flag: "wx" });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  const key = parseSecretKey(readFileSync(path, "utf8").trim());
  if (!key) throw new Error(`${path} does not hold a secret key (64 hex characters)`);
  return key;
}

/** The configured key, else (SQLite) the one in the database file's directory; config rejects PostgreSQL without one. */
export function configuredSecretKey(config: { secretKey?: Buffer; databaseUrl: string }, fallbackDirectory: string) {
  if (config.secretKey) return config.secretKey;
  const path = config.databaseUrl.replace(/^sqlite:/, "");
  return dataDirectorySecretKey(path === ":memory:" || path === config.databaseUrl ? fallbackDirectory : dirname(path));
}
