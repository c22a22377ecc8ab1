/** A real HTTP server on loopback for the client's tests: scripted answers, every request recorded. */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

/** One scripted answer: a status with optional JSON body and headers, or `drop` to cut the connection. */
export type Answer = "drop" | { status: number; body?: unknown; headers?: Record<string, string> };

export interface TestServer {
  /** The server's origin, `http://127.0.0.1:<port>`. */
  origin: string;
  requests: Recorded[];
  close(): Promise<void>;
}

/**
 * Starts a server on an ephemeral port. `answer` is called with each request (and its 0-based index) and says
 * what to send back.
 */
export async function startServer(
  answer: (request: Recorded, index: number) => Answer | Promise<Answer>,
): Promise<TestServer> {
  const requests: Recorded[] = [];
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const recorded = {
      method: req.method ?? "",
      url: req.url ?? "",
      headers: req.headers,
      body: Buffer.concat(chunks).toString("utf8"),
    };
    requests.push(recorded);
    const reply = await answer(recorded, requests.length - 1);
    if (reply === "drop") {
      req.socket.destroy();
      return;
    }
    const body = reply.body === undefined ? "" : JSON.stringify(reply.body);
    res.writeHead(reply.status, {
      ...(body ? { "Content-Type": "application/json" } : {}),
      "X-Request-Id": String(req.headers["x-request-id"] ?? crypto.randomUUID()),
      ...reply.headers,
    });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** Answers in order; the last answer repeats. */
export const scripted =
  (...answers: Answer[]) =>
  (_: Recorded, index: number): Answer =>
    answers[Math.min(index, answers.length - 1)] as Answer;

export const PROJECT = {
  id: "project_01JD8Q4KZ8T6V2M3N4P5Q6R7S8",
  title: "Support assistant",
  icon: { type: "emoji", value: "🛟" },
  createdAt: 1732190400000,
  updatedAt: 1732190400000,
};

export const errorBody = (code: string, message = code) => ({ error: { code, message } });
