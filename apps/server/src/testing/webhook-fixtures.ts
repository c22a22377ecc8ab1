/**
 * Fixtures of the webhook tests: endpoints made through the API, a real HTTP receiver on loopback (a receiver
 * is an edge Pharos does not own), and the signature check a receiver makes, with node:crypto as
 * `verifyWebhook` of @pharos/client does it (the client's own test runs it against a real delivery).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "vitest";
import type { Harness } from "./harness.ts";

export const MISSING_WEBHOOK = `webhook_${"0".repeat(26)}`;

export async function createWebhook(h: Harness, body: Record<string, unknown> = {}, projectId = h.projectId) {
  const reply = await h.request("POST", `/projects/${projectId}/webhooks`, {
    body: { name: "Cache refresh", url: "https://hooks.example.com/pharos", ...body },
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body as { id: string; secret: string; url: string; [key: string]: unknown };
}

export const webhookPath = (h: Harness, webhookId: string, rest = "", projectId = h.projectId) =>
  `/projects/${projectId}/webhooks/${webhookId}${rest}`;

/** Deletes every endpoint (and delivery) of the harness's database, so a test sees only its own. */
export async function clearWebhooks(h: Harness) {
  await h.store.db.deleteFrom("webhookDeliveries").execute();
  await h.store.db.deleteFrom("webhooks").execute();
}

export async function deliveriesOf(h: Harness, webhookId: string) {
  const reply = await h.request("GET", webhookPath(h, webhookId, "/deliveries?limit=200&sort=createdAt:asc"));
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body.deliveries as any[];
}

export interface Received {
  body: string;
  headers: IncomingHttpHeaders;
  json: any;
}

/** A webhook receiver on loopback: records every POST, answers `status` (200 by default); can go down and up. */
export interface Receiver {
  url: string;
  received: Received[];
  status: number;
  /** Stops listening: connections are refused until `up()`. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  let server: Server | undefined;
  let port = 0;
  const receiver: Receiver = {
    url: "",
    received,
    status: 200,
    async up() {
      server = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on("data", (chunk: Buffer) => chunks.push(chunk));
        request.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8");
          received.push({ body, headers: request.headers, json: JSON.parse(body) });
          response.writeHead(receiver.status, { "Content-Type": "text/plain" });
          response.end("ok");
        });
      });
      await new Promise<void>((resolve) => server?.listen(port, "127.0.0.1", resolve));
      port = (server.address() as AddressInfo).port;
      receiver.url = `http://127.0.0.1:${port}/hook`;
    },
    async down() {
      const closing = server;
      server = undefined;
      if (!closing) return;
      await new Promise<void>((resolve) => {
        closing.closeAllConnections();
        closing.close(() => resolve());
      });
    },
    close: () => receiver.down(),
  };
  await receiver.up();
  return receiver;
}

/** Whether `header` signs `body` with `secret`: `t=<ms>&v1=<hex>[,<hex>]`, HMAC-SHA256 of `"<t>.<body>"`. */
export function signedWith(body: string, header: string | string[] | undefined, secret: string): boolean {
  const match = /^t=(\d+)&v1=([0-9a-f,]+)$/.exec(String(header));
  if (!match) return false;
  const expected = createHmac("sha256", secret).update(`${match[1]}.${body}`).digest();
  return (match[2] as string)
    .split(",")
    .some((hex) => hex.length === 64 && timingSafeEqual(Buffer.from(hex, "hex"), expected));
}

/** A clock the test moves: starts after everything the harness's clock has stamped. */
export function testClock(h: Harness) {
  let time = h.now() + 1000;
  return {
    now: () => time,
    advance(ms: number) {
      time += ms;
    },
    set(ms: number) {
      time = ms;
    },
  };
}
