/**
 * The HTTP call of an `api` cell: the column's request with the row's cells in its placeholders, sent once with
 * a timeout to an address the SSRF guard allows (the webhook guard and its operator switch), its 2xx body read
 * up to a cap. Never throws: a call that does not give a value gives the reason.
 */
import { request as httpRequest, type RequestOptions } from "node:http";
import { request as httpsRequest } from "node:https";
import type { schemas } from "@pharos/contract";
import { describeError } from "../config.ts";
import { guardedLookup, RefusedAddress } from "../services/webhooks/delivery.ts";
import { privateHostReason } from "../services/webhooks/private-addresses.ts";

/** The largest response body a cell takes (a cell holds at most 100,000 characters). */
export const MAX_API_RESPONSE_BYTES = 100_000;
const USER_AGENT = "Pharos-Dataset-Columns/2";
const PLACEHOLDER = /\{\{([A-Za-z0-9_-]{1,64})\}\}/g;

export interface ApiCallSettings {
  allowPrivateAddresses: boolean;
  timeoutMs: number;
}

export type ApiCallOutcome = { value: string; latencyMs: number } | { error: string; latencyMs: number };

/** The placeholders of `text` filled from `values` (`encode` applied to each), or the names with no value. */
function fill(
  text: string,
  values: Readonly<Record<string, string | null>>,
  encode: (value: string) => string,
): { text: string } | { missing: string[] } {
  const missing: string[] = [];
  const filled = text.replace(PLACEHOLDER, (whole, name: string) => {
    const value = Object.hasOwn(values, name) ? values[name] : null;
    if (value === null || value === undefined) {
      missing.push(name);
      return whole;
    }
    return encode(value);
  });
  return missing.length > 0 ? { missing } : { text: filled };
}

/** The request with the row's values in place (URL-encoded in the URL), or why it cannot be made. */
export function fillRequest(
  settings: schemas.ApiColumnSettings,
  values: Readonly<Record<string, string | null>>,
): { url: string; headers: Record<string, string>; body: string | null } | { error: string } {
  const missing = new Set<string>();
  const take = (result: { text: string } | { missing: string[] }) => {
    if ("missing" in result) for (const name of result.missing) missing.add(name);
    return "text" in result ? result.text : "";
  };
  const url = take(fill(settings.url, values, encodeURIComponent));
  const headers = Object.fromEntries(
    Object.entries(settings.headers).map(([name, value]) => [name, take(fill(value, values, String))]),
  );
  const body = settings.body === null ? null : take(fill(settings.body, values, String));
  if (missing.size > 0) {
    const names = [...missing].map((name) => `{{${name}}}`).join(", ");
    return { error: `The row has no value for ${names}.` };
  }
  return { url, headers, body };
}

export function callApi(
  method: schemas.ApiColumnMethod,
  request: { url: string; headers: Record<string, string>; body: string | null },
  settings: ApiCallSettings,
): Promise<ApiCallOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: { value: string } | { error: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, latencyMs: elapsed() });
      sent?.destroy();
    };
    let sent: ReturnType<typeof httpRequest> | undefined;
    const timer = setTimeout(
      () => finish({ error: `No answer within ${settings.timeoutMs / 1000} s.` }),
      settings.timeoutMs,
    );
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return finish({ error: "The column's URL, filled with the row's values, is not a valid URL." });
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      return finish({ error: "The column's URL, filled with the row's values, is not an http(s) URL." });
    }
    if (!settings.allowPrivateAddresses) {
      const reason = privateHostReason(url.hostname);
      if (reason !== undefined) {
        return finish({ error: `Refused: ${reason} (PHAROS_WEBHOOKS_ALLOW_PRIVATE is off).` });
      }
    }
    const body = request.body === null ? undefined : Buffer.from(request.body, "utf8");
    const options: RequestOptions = {
      method,
      headers: {
        "User-Agent": USER_AGENT,
        ...request.headers,
        ...(body ? { "Content-Length": String(body.length) } : {}),
      },
      ...(settings.allowPrivateAddresses ? {} : { lookup: guardedLookup }),
      agent: false,
    };
    sent = (url.protocol === "https:" ? httpsRequest : httpRequest)(url, options, (response) => {
      const status = response.statusCode ?? 0;
      if (status < 200 || status >= 300) return finish({ error: `The endpoint answered ${status}.` });
      const chunks: Buffer[] = [];
      let read = 0;
      response.on("data", (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_API_RESPONSE_BYTES) {
          finish({ error: `The response is larger than ${MAX_API_RESPONSE_BYTES.toLocaleString("en")} bytes.` });
        } else {
          chunks.push(chunk);
        }
      });
      response.on("end", () => finish({ value: Buffer.concat(chunks).toString("utf8") }));
      response.on("error", (error) => finish({ error: `Reading the response failed: ${describeError(error)}.` }));
    });
    sent.on("error", (error) =>
      finish({
        error:
          error instanceof RefusedAddress
            ? `Refused: ${error.message} (PHAROS_WEBHOOKS_ALLOW_PRIVATE is off).`
            : `The request failed: ${describeError(error)}.`,
      }),
    );
    sent.end(body);
  });
}
