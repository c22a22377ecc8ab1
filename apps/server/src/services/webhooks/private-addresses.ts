/**
 * The SSRF guard of webhook deliveries: which addresses a webhook may not reach unless the operator allows
 * private addresses. Checked on the URL's host when an endpoint is saved (a literal address or `localhost`),
 * and on every address a host name resolves to when a delivery connects (DNS can change after the check).
 */
import { BlockList, isIP } from "node:net";

const refused = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network", 0.0.0.0 reaches the host itself
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // shared address space (CGNAT)
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata services (169.254.169.254)
  ["172.16.0.0", 12],
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  refused.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 96], // unspecified, loopback (::1) and IPv4-compatible addresses
  ["64:ff9b::", 96], // NAT64: an IPv4 address behind a translator, private ones included
  ["100::", 64], // discard-only
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
] as const) {
  refused.addSubnet(network, prefix, "ipv6");
}

/**
 * Undefined for a public address; otherwise why it is refused. IPv4-mapped IPv6 addresses (`::ffff:a.b.c.d`, which
 * the URL parser writes in hex) are judged as IPv4: BlockList checks them against the IPv4 ranges.
 */
export function privateAddressReason(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, "");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare)?.[1];
  const family = isIP(mapped ?? bare);
  if (family === 0) return undefined;
  const checked = mapped ?? bare;
  if (refused.check(checked, family === 4 ? "ipv4" : "ipv6")) {
    return `${checked} is a loopback, private, link-local or otherwise non-public address`;
  }
  return undefined;
}

/** Why the URL's host may not be called (before resolution): `localhost` names and private literal addresses. */
export function privateHostReason(hostname: string): string | undefined {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) return `${hostname} is a loopback host name`;
  return privateAddressReason(host);
}
