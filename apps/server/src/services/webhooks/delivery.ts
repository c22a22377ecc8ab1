/**
 * One delivery attempt: sign the event's body with the endpoint's secrets, POST it with a timeout to an
 * address the SSRF guard allows, and record the attempt on the delivery (ADR 0011). Shared by the deliverer
 * (worker/webhook-deliverer.ts) and the test event.
 */
import { createHmac } from "node:crypto";
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { request as httpRequest, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import type { schemas } from "@pharos/contract";
import type { Kysely } from "kysely";
import { describeError } from "../../config.ts";
import type { SecretBox } from "../../secrets/secret-box.ts";
import type { Database } from "../../store/schema.ts";
import type { Store } from "../../store/store.ts";
import { fromJson, toJson } from "../json.ts";
import { privateAddressReason, privateHostReason } from "./private-addresses.ts";

export type WebhookDelivery = schemas.WebhookDelivery;
export type DeliveryAttempt = schemas.WebhookDeliveryAttempt;
type DeliveryRow = Database["webhookDeliveries"];

/** The most attempts one delivery records (the spec's bound); a delivery that reaches it has failed. */
export const MAX_ATTEMPTS = 100;
const MAX_ERROR_LENGTH = 1000;
/** How much of an answer's body is read (and dropped) before the connection is let go. */
const MAX_ANSWER_BYTES = 64 * 1024;

export const USER_AGENT = "Pharos-Webhooks/2";

export function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    webhookId: row.webhookId,
    eventId: row.eventId,
    type: row.type,
    status: row.status,
    attempts: fromJson<DeliveryAttempt[]>(row.attempts),
    nextAttemptAt: row.nextAttemptAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** `t=<ms>&v1=<hex>[,<hex>]`: HMAC-SHA256 of `"<t>.<body>"` with each secret's UTF-8 bytes, current first. */
export function signatureHeader(body: string, secrets: readonly string[], timestamp: number): string {
  const signatures = secrets.map((secret) => createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex"));
  return `t=${timestamp}&v1=${signatures.join(",")}`;
}

/** The secrets that sign at `now`: the current one, and the previous one within 12 hours of a rotation. */
export function signingSecrets(
  secrets: SecretBox,
  webhook: Pick<Database["webhooks"], "secret" | "previousSecret" | "previousSecretExpiresAt">,
  now: number,
): string[] {
  const signing = [secrets.open(webhook.secret)];
  if (webhook.previousSecret !== null && (webhook.previousSecretExpiresAt ?? 0) > now) {
    signing.push(secrets.open(webhook.previousSecret));
  }
  return signing;
}

export interface AttemptTarget {
  url: string;
  /** Custom headers of the endpoint. */
  headers: Record<string, string>;
  eventId: string;
  body: string;
  signature: string;
}

export interface AttemptSettings {
  allowPrivateAddresses: boolean;
  timeoutMs: number;
}

/** What an attempt came to: a 2xx answer succeeded; anything else failed, with a reason. */
export interface AttemptOutcome {
  statusCode: number | null;
  error: string | null;
}

/** A connection refused by the SSRF guard (its message says why). */
export class RefusedAddress extends Error {}

/** Resolves like dns.lookup, failing for a name any of whose addresses is private (DNS rebinding included). */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, "", 4);
    for (const { address } of addresses) {
      const reason = privateAddressReason(address);
      if (reason !== undefined) {
        return callback(new RefusedAddress(`${hostname} resolves to ${reason}`), "", 4);
      }
    }
    const first = addresses[0];
    if (!first) return callback(new Error(`${hostname} has no address`), "", 4);
    if ((options as { all?: boolean }).all)
      return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    return callback(null, first.address, first.family);
  });
};

/** POSTs the signed body once; never throws. No redirect is followed (a 3xx fails the attempt). */
export function attemptDelivery(target: AttemptTarget, settings: AttemptSettings): Promise<AttemptOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, error: outcome.error?.slice(0, MAX_ERROR_LENGTH) ?? null });
    };
    let url: URL;
    try {
      url = new URL(target.url);
    } catch {
      return resolve({ statusCode: null, error: "The endpoint's URL is not a valid URL." });
    }
    if (!settings.allowPrivateAddresses) {
      const reason = privateHostReason(url.hostname);
      if (reason !== undefined) {
        return resolve({ statusCode: null, error: `Refused: ${reason} (PHAROS_WEBHOOKS_ALLOW_PRIVATE is off).` });
      }
    }
    const body = Buffer.from(target.body, "utf8");
    const options: RequestOptions = {
      method: "POST",
      headers: {
        ...target.headers,
        "Content-Type": "application/json",
        "Content-Length": String(body.length),
        "User-Agent": USER_AGENT,
        "X-Webhook-Signature": target.signature,
        "X-Webhook-Event-Id": target.eventId,
      },
      ...(settings.allowPrivateAddresses ? {} : { lookup: guardedLookup }),
      agent: false,
    };
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const request = send(url, options, (response) => {
      // The status decides; the answer's body is read (at most MAX_ANSWER_BYTES) and dropped, for the timeout.
      const statusCode = response.statusCode ?? 0;
      const known = statusCode >= 100 && statusCode <= 599 ? statusCode : null;
      finish(
        statusCode >= 200 && statusCode < 300
          ? { statusCode: known, error: null }
          : { statusCode: known, error: `The endpoint answered ${statusCode}.` },
      );
      setTimeout(() => request.destroy(), settings.timeoutMs).unref();
      let read = 0;
      response.on("data", (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) request.destroy();
      });
      response.on("end", () => request.destroy());
      response.on("error", () => {});
    });
    const timer = setTimeout(() => {
      finish({ statusCode: null, error: `No answer within ${settings.timeoutMs / 1000} s.` });
      request.destroy();
    }, settings.timeoutMs);
    request.on("error", (error) => {
      const reason =
        error instanceof RefusedAddress
          ? `Refused: ${error.message} (PHAROS_WEBHOOKS_ALLOW_PRIVATE is off).`
          : `The request failed: ${describeError(error)}.`;
      finish({ statusCode: null, error: reason });
    });
    request.end(body);
  });
}

/** When a failed attempt is tried again: exponential backoff from `baseMs`, capped at `maxMs`, with jitter. */
export interface Backoff {
  baseMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { baseMs: 10_000, maxMs: 60 * 60 * 1000 };

/** The delay after the `failures`-th failed attempt: base·2^(failures−1), capped, times a factor in [0.5, 1). */
export function retryDelay(backoff: Backoff, failures: number, random: () => number = Math.random): number {
  const exponential = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.min(failures - 1, 30));
  return Math.round(exponential * (0.5 + random() / 2));
}

/**
 * Appends the attempt to a pending delivery and settles it: succeeded on a 2xx; otherwise pending again with
 * the next attempt due after the backoff, or failed when that would be past its retry window, when it has
 * had MAX_ATTEMPTS, or when `retry` is false (a test event). A delivery no longer pending (settled by another
 * deliverer, or deleted with its endpoint) is left alone. Returns the delivery as stored, if any.
 */
export async function recordAttempt(
  store: Store,
  db: Kysely<Database>,
  deliveryId: string,
  attempt: DeliveryAttempt,
  next: { retry: boolean; backoff: Backoff; now: number; random?: () => number },
): Promise<DeliveryRow | undefined> {
  return store.transaction(db, async (trx) => {
    const delivery = await store.sql.locks
      .forUpdate(trx.selectFrom("webhookDeliveries").selectAll().where("id", "=", deliveryId))
      .executeTakeFirst();
    if (delivery?.status !== "pending") return delivery;
    const attempts = [...fromJson<DeliveryAttempt[]>(delivery.attempts), attempt].slice(-MAX_ATTEMPTS);
    let status: DeliveryRow["status"] = "pending";
    let nextAttemptAt: number | null = null;
    if (attempt.error === null) status = "succeeded";
    else {
      const due = next.now + retryDelay(next.backoff, attempts.length, next.random);
      if (!next.retry || due > delivery.retryUntil || attempts.length >= MAX_ATTEMPTS) status = "failed";
      else nextAttemptAt = due;
    }
    const changes = { attempts: toJson(attempts), status, nextAttemptAt, updatedAt: next.now };
    await trx.updateTable("webhookDeliveries").set(changes).where("id", "=", deliveryId).execute();
    return { ...delivery, ...changes };
  });
}
