import { OAuthProtocolError } from "./errors.ts";

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);
const MAX_URI_LENGTH = 2000;

/** Whether the URL is an http URL on the loopback interface (a desktop app's redirect, RFC 8252 §7.3). */
function isLoopbackHttp(url: URL): boolean {
  return url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname);
}

/**
 * A redirect URI a client may register: https anywhere, or http on loopback only; never a
 * fragment, credentials, or another scheme (javascript:, data:, file:), so a code is only ever
 * sent where TLS or the person's own machine receives it.
 */
export function checkRedirectUri(raw: unknown): string {
  if (typeof raw !== "string" || raw.length === 0 || raw.length > MAX_URI_LENGTH) {
    throw new OAuthProtocolError("invalid_redirect_uri", "a redirect URI must be a URL of at most 2000 characters");
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OAuthProtocolError("invalid_redirect_uri", `the redirect URI ${JSON.stringify(raw.slice(0, 100))} is not a URL`);
  }
  if (url.protocol !== "https:" && !isLoopbackHttp(url)) {
    throw new OAuthProtocolError("invalid_redirect_uri", `the redirect URI ${JSON.stringify(raw.slice(0, 100))} must be https, or http on a loopback address (127.0.0.1, [::1], localhost)`);
  }
  if (url.hash !== "" || raw.includes("#")) throw new OAuthProtocolError("invalid_redirect_uri", "a redirect URI may not have a fragment");
  if (url.username !== "" || url.password !== "") throw new OAuthProtocolError("invalid_redirect_uri", "a redirect URI may not carry credentials");
  return raw;
}

/**
 * Whether `asked` is one of the registered redirect URIs: the exact string (case, trailing slash
 * and port included), except that a loopback http URI matches on any port, because a desktop app
 * learns its port only when it opens it (RFC 8252 §7.3).
 */
export function redirectRegistered(registered: readonly string[], asked: string): boolean {
  if (registered.includes(asked)) return true;
  let url: URL;
  try {
    url = new URL(asked);
  } catch {
    return false;
  }
  if (!isLoopbackHttp(url) || url.hash !== "" || asked.includes("#")) return false;
  const withoutPort = (u: URL) => `${u.protocol}//${u.hostname}${u.pathname}${u.search}`;
  // The asked string must be exactly what its parsed form prints (no case or encoding games).
  if (url.href !== asked) return false;
  return registered.some((r) => {
    try {
      const reg = new URL(r);
      return isLoopbackHttp(reg) && reg.href === r && withoutPort(reg) === withoutPort(url);
    } catch {
      return false;
    }
  });
}
