/**
 * The client's address. Behind a reverse proxy every request comes from the proxy, so with
 * TRUST_PROXY=n the address is taken from X-Forwarded-For, n entries from the right (each trusted
 * proxy appends one). Without it the header is ignored and cannot be spoofed.
 */
export function clientIp(request: Request, socketIp: string | undefined, trustProxy: false | number): string {
  const direct = normalize(socketIp ?? "unknown");
  if (trustProxy === false || trustProxy === 0) return direct;
  const header = request.headers.get("x-forwarded-for");
  if (!header) return direct;
  const hops = header
    .split(",")
    .map((h) => h.trim())
    .filter((h) => h !== "");
  const picked = hops[Math.max(0, hops.length - trustProxy)];
  return picked && /^[0-9a-fA-F:.]{2,45}$/.test(picked) ? normalize(picked) : direct;
}

function normalize(ip: string): string {
  return ip.startsWith("::ffff:") ? ip.slice(7) : ip;
}
