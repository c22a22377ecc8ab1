/**
 * A tiny round-robin HTTP proxy on loopback, as a load balancer in front of several replicas would be: each
 * request goes to the next upstream in turn, whole (method, path, headers, body), and its answer comes back
 * with `X-Upstream` naming the upstream's index. An upstream that cannot be reached, or that drops the
 * connection before answering (a killed server), is answered 502, which clients retry as any 5xx; the proxy
 * does not retry by itself, as it cannot know whether the upstream acted on the request.
 */
import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";

export interface RoundRobinProxy {
  /** http://127.0.0.1:<port> */
  url: string;
  close(): Promise<void>;
}

export async function startRoundRobinProxy(upstreams: readonly string[]): Promise<RoundRobinProxy> {
  let next = 0;
  const server = createServer((incoming, outgoing) => {
    const index = next++ % upstreams.length;
    const target = new URL(incoming.url ?? "/", upstreams[index]);
    const badGateway = (error: Error) => {
      if (outgoing.headersSent) {
        outgoing.destroy();
        return;
      }
      outgoing.writeHead(502, { "Content-Type": "text/plain", "X-Upstream": String(index) });
      outgoing.end(`upstream ${index} failed: ${error.message}`);
    };
    const forwarded = httpRequest(
      target,
      { method: incoming.method, headers: { ...incoming.headers, host: target.host } },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, { ...answer.headers, "x-upstream": String(index) });
        answer.pipe(outgoing);
        answer.on("error", badGateway);
      },
    );
    forwarded.on("error", badGateway);
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
