/** One request as the fuzzer sends it over loopback, and how it is shown in a report. */

export interface FuzzRequest {
  method: string;
  /** Absolute URL, exactly as sent (percent-encodings kept). */
  url: string;
  headers: Record<string, string>;
  body?: {
    bytes: Uint8Array;
    /** Sent with Transfer-Encoding: chunked (no Content-Length), in 64 KiB chunks. */
    chunked: boolean;
    /** What the body is, for a report when it is too big to print. */
    label?: string;
  };
}

export interface FuzzResponse {
  status: number;
  headers: Headers;
  text: string;
  /** A Response with the same status, headers and body, for the spec validator. */
  toResponse(): Response;
}

const CHUNK = 64 * 1024;

export async function send(request: FuzzRequest): Promise<FuzzResponse> {
  const init: RequestInit & { duplex?: "half" } = { method: request.method, headers: request.headers };
  if (request.body) {
    const { bytes, chunked } = request.body;
    if (chunked) {
      let offset = 0;
      init.body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (offset >= bytes.length) return controller.close();
          controller.enqueue(bytes.subarray(offset, offset + CHUNK));
          offset += CHUNK;
        },
      });
      init.duplex = "half";
    } else {
      init.body = bytes;
    }
  }
  const response = await fetch(request.url, init);
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    toResponse: () =>
      new Response(response.status === 204 || response.status === 304 ? null : text, {
        status: response.status,
        headers: response.headers,
      }),
  };
}

const SHOWN = 2_000;

export function truncate(text: string, limit = SHOWN): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… (${text.length} characters in all)`;
}

/** The request as a reader (or curl) would want it: method, URL, headers and the start of the body. */
export function describeRequest(request: FuzzRequest): string {
  const lines = [`${request.method} ${truncate(request.url)}`];
  for (const [name, value] of Object.entries(request.headers)) lines.push(`${name}: ${truncate(value, 200)}`);
  if (request.body) {
    const { bytes, chunked, label } = request.body;
    const shown = label ?? truncate(new TextDecoder().decode(bytes.subarray(0, SHOWN * 4)));
    lines.push(`(${bytes.length} bytes${chunked ? ", chunked" : ""})`, shown);
  }
  return lines.join("\n");
}

export function describeResponse(response: FuzzResponse): string {
  const headers = [...response.headers].map(([name, value]) => `${name}: ${truncate(value, 200)}`);
  return [`${response.status}`, ...headers, truncate(response.text)].join("\n");
}
