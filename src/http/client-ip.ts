import { isIP } from "node:net";

/**
 * The client's address, the one rate limits and session records use. Behind a reverse proxy every
 * request comes from the proxy, so with TRUST_PROXY=n the address is taken from X-Forwarded-For,
 * n entries from the right (each trusted proxy appends the address it received from). Without it
 * the header is ignored, so it cannot be spoofed to escape a limit. An entry that is not an IP
 * address falls back to the socket's address.
 */
export function clientIp(request: Request, socketIp: string | undefined | (() => string | undefined), trustProxy: false | number): string {
  // The socket's address may be passed as a function: asking the socket costs a system call,
  // which a request with a trusted X-Forwarded-For address does not need.
  const direct = () => normalize((typeof socketIp === "function" ? socketIp() : socketIp) ?? "unknown");
  if (trustProxy === false || trustProxy === 0) return direct();
  const header = request.headers.get("x-forwarded-for");
  if (!header) return direct();
  // One address (a single proxy in front, the usual case): nothing to split.
  if (!header.includes(",")) {
    const only = header.trim();
    return only !== "" && only.length <= 45 && isIP(only) !== 0 ? normalize(only) : direct();
  }
  const hops = header
    .split(",")
    .map((h) => h.trim())
    .filter((h) => h !== "");
  // With fewer entries than trusted hops the leftmost one is the farthest address we know.
  const picked = hops[Math.max(0, hops.length - trustProxy)];
  return picked && picked.length <= 45 && isIP(picked) !== 0 ? normalize(picked) : direct();
}

function normalize(ip: string): string {
  // An IPv4 client seen through a dual-stack socket is still that IPv4 client.
  return ip.toLowerCase().startsWith("::ffff:") && ip.includes(".") ? ip.slice(7) : ip.toLowerCase();
}
