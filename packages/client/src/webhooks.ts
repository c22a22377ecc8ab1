/**
 * `verifyWebhook`: whether a webhook delivery was signed by Pharos with your endpoint's secret. The header is
 * `X-Webhook-Signature: t=<unix ms>&v1=<hex>`, where the hex is HMAC-SHA256, keyed with the secret's UTF-8
 * bytes, of `"<t>.<raw body>"`. During a secret rotation the header carries a signature per secret that signs
 * (`v1=<hex>,<hex>`, or `v1` repeated), so any matching one is enough; a receiver that holds both secrets may pass
 * both. Web Crypto only, so it runs in
 * Node 20, browsers' workers and edge runtimes alike.
 */

export interface VerifyWebhookOptions {
  /** How far `t` may be from now, in ms, either way: older deliveries are refused as replays. Default 5 minutes. */
  toleranceMs?: number;
  /** The current time in Unix ms (tests). */
  now?: number;
}

const DEFAULT_TOLERANCE_MS = 5 * 60_000;
const encoder = new TextEncoder();

/**
 * Resolves true when `header` holds a valid signature of `rawBody` (the bytes as received, before any JSON
 * parsing) by one of `secret`, made within the tolerance; false otherwise, including for a missing or malformed
 * header. It never throws on what a sender controls.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array | ArrayBuffer,
  header: string | null | undefined,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): Promise<boolean> {
  const parsed = parseSignatureHeader(header ?? "");
  if (parsed === undefined) return false;
  const now = options.now ?? Date.now();
  if (Math.abs(now - parsed.timestamp) > (options.toleranceMs ?? DEFAULT_TOLERANCE_MS)) return false;

  const body = typeof rawBody === "string" ? encoder.encode(rawBody) : new Uint8Array(rawBody);
  const prefix = encoder.encode(`${parsed.timestampText}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);

  let valid = false;
  for (const one of typeof secret === "string" ? [secret] : secret) {
    const key = await crypto.subtle.importKey("raw", encoder.encode(one), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
    ]);
    const expected = new Uint8Array(await crypto.subtle.sign("HMAC", key, signed));
    // Every candidate is compared in full, so the time taken does not tell which one (or how much) matched.
    for (const candidate of parsed.signatures) valid = constantTimeEqual(expected, candidate) || valid;
  }
  return valid;
}

interface SignatureHeader {
  timestamp: number;
  /** `t` as sent: the signed text uses it verbatim. */
  timestampText: string;
  signatures: Uint8Array[];
}

/**
 * `t=<digits>&v1=<64 hex>[,<64 hex>…]` (or `v1` repeated); unknown keys (a future `v2`) and anything in `v1` that
 * is not 64 hex digits are ignored. Undefined when unusable.
 */
function parseSignatureHeader(header: string): SignatureHeader | undefined {
  let timestampText: string | undefined;
  const signatures: Uint8Array[] = [];
  for (const part of header.split("&")) {
    const separator = part.indexOf("=");
    const key = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (separator < 0) continue;
    if (key === "t" && /^\d{1,16}$/.test(value)) timestampText = value;
    else if (key === "v1") {
      for (const one of value.split(","))
        if (/^[0-9a-fA-F]{64}$/.test(one.trim())) signatures.push(hexBytes(one.trim()));
    }
  }
  if (timestampText === undefined || signatures.length === 0) return undefined;
  return { timestamp: Number(timestampText), timestampText, signatures };
}

function hexBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= (a[i] as number) ^ (b[i] as number);
  return difference === 0;
}
