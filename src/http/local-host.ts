/**
 * DNS rebinding protection for an instance that serves only this machine (docs/decisions/site-mcp.md, "DNS rebinding"):
 * when BASE_URL names a loopback host, a request naming any other host — in `Host`, or in a
 * browser's `Origin` — comes from a page whose name was pointed at 127.0.0.1 after it loaded, and is
 * refused. An instance on a real name is reachable by that name anyway; nothing to protect there.
 */
const LOOPBACK = /^(localhost|[a-z0-9-]+\.localhost|127(\.\d{1,3}){3}|\[?::1\]?)$/i;

function hostnameOf(value: string | null, asUrl: boolean): string | null {
  if (value === null || value === "") return null;
  try {
    return new URL(asUrl ? value : `http://${value}`).hostname;
  } catch {
    return "";
  }
}

/** True when the instance is local and the request names a host other than a loopback one. */
export function foreignToLocalInstance(request: Request, baseUrl: string): boolean {
  if (!LOOPBACK.test(new URL(baseUrl).hostname)) return false;
  const host = hostnameOf(request.headers.get("host"), false);
  if (host !== null && !LOOPBACK.test(host)) return true;
  const origin = request.headers.get("origin");
  if (origin === null || origin === "null") return false;
  const from = hostnameOf(origin, true);
  return from === null || !LOOPBACK.test(from);
}
