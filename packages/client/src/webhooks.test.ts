/** verifyWebhook against signatures made independently with node:crypto, as the server signs. */
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { verifyWebhook } from "./webhooks.ts";

const SECRET = "whsec_test_secret";
const BODY = '{"type":"create-deployment","eventId":"ev_1","createdAt":1731024000000,"payload":{"x":"é"}}';
const NOW = 1_731_024_000_000;
const sign = (secret: string, t: number | string, body = BODY) =>
  createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");

describe("verifyWebhook", () => {
  it("accepts a signature of the raw body made with the secret, as text or bytes", async () => {
    const header = `t=${NOW}&v1=${sign(SECRET, NOW)}`;
    expect(await verifyWebhook(BODY, header, SECRET, { now: NOW })).toBe(true);
    expect(await verifyWebhook(new TextEncoder().encode(BODY), header, SECRET, { now: NOW + 60_000 })).toBe(true);
    expect(await verifyWebhook(new TextEncoder().encode(BODY).buffer, header, SECRET, { now: NOW })).toBe(true);
  });

  it("accepts any of several signatures (a rotation: old and new secret both sign) and any of several secrets", async () => {
    // The server lists them comma-separated in one v1; a repeated v1 is read the same way.
    const header = `t=${NOW}&v1=${sign("new", NOW)},${sign("old", NOW)}`;
    expect(await verifyWebhook(BODY, header, "old", { now: NOW })).toBe(true);
    expect(await verifyWebhook(BODY, header, "new", { now: NOW })).toBe(true);
    const repeated = `t=${NOW}&v1=${sign("old", NOW)}&v1=${sign("new", NOW)}`;
    expect(await verifyWebhook(BODY, repeated, "new", { now: NOW })).toBe(true);
    expect(await verifyWebhook(BODY, `t=${NOW}&v1=${sign("old", NOW)}`, ["new", "old"], { now: NOW })).toBe(true);
    expect(await verifyWebhook(BODY, header, "other", { now: NOW })).toBe(false);
  });

  it("refuses a changed body, another timestamp, a stale or future t, and malformed headers", async () => {
    const header = `t=${NOW}&v1=${sign(SECRET, NOW)}`;
    expect(await verifyWebhook(`${BODY} `, header, SECRET, { now: NOW })).toBe(false);
    expect(await verifyWebhook(BODY, `t=${NOW + 1}&v1=${sign(SECRET, NOW)}`, SECRET, { now: NOW })).toBe(false);
    expect(await verifyWebhook(BODY, header, SECRET, { now: NOW + 5 * 60_000 + 1 })).toBe(false);
    expect(await verifyWebhook(BODY, header, SECRET, { now: NOW - 5 * 60_000 - 1 })).toBe(false);
    expect(await verifyWebhook(BODY, header, SECRET, { now: NOW + 3_600_000, toleranceMs: 3_600_000 })).toBe(true);
    for (const bad of [
      undefined,
      null,
      "",
      `v1=${sign(SECRET, NOW)}`,
      `t=${NOW}`,
      `t=soon&v1=${sign(SECRET, NOW)}`,
      `t=${NOW}&v1=${sign(SECRET, NOW).slice(2)}`,
      `t=${NOW}&v1=${sign(SECRET, NOW).slice(2)},${sign("other", NOW)}`,
      `t=${NOW},v1=${sign(SECRET, NOW)}`,
    ]) {
      expect(await verifyWebhook(BODY, bad, SECRET, { now: NOW })).toBe(false);
    }
  });

  it("signs the timestamp as sent", async () => {
    expect(await verifyWebhook(BODY, `t=0${NOW}&v1=${sign(SECRET, `0${NOW}`)}`, SECRET, { now: NOW })).toBe(true);
  });
});
