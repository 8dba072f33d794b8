import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { isAbsolute } from "node:path";
import { ValidationError } from "../core/errors.ts";

/**
 * A workspace's git remote, taken apart once: which engine speaks it, which host it reaches, and
 * the credentials it carries (kept apart so they are never logged or shown).
 *
 * - `http`: http(s) URLs — isomorphic-git's HTTP client; user:password from the URL become basic auth.
 * - `ssh`: ssh:// and scp-like `user@host:path` — the native git binary.
 * - `local`: an absolute path on this machine — the native git binary. Only `quire init` (an
 *   operator on the server) can set one; the API's schema refuses paths.
 */
export interface RemoteSpec {
  kind: "http" | "ssh" | "local";
  /** What git is given: the URL without user info for http; as stored otherwise. */
  url: string;
  host: string | null;
  auth: { username: string; password: string } | null;
}

export function parseRemote(stored: string): RemoteSpec {
  if (isAbsolute(stored)) return { kind: "local", url: stored, host: null, auth: null };
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(stored)?.[1]?.toLowerCase();
  if (scheme === "http" || scheme === "https") {
    const u = new URL(stored);
    const auth = u.username || u.password ? { username: decodeURIComponent(u.username), password: decodeURIComponent(u.password) } : null;
    u.username = "";
    u.password = "";
    return { kind: "http", url: u.toString(), host: stripBrackets(u.hostname), auth };
  }
  if (scheme === "ssh") return { kind: "ssh", url: stored, host: stripBrackets(new URL(stored).hostname), auth: null };
  const scp = /^[A-Za-z0-9._~-]+@([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):/.exec(stored);
  if (scp) return { kind: "ssh", url: stored, host: stripBrackets(scp[1]!), auth: null };
  throw new ValidationError("git_remote: must be an HTTPS or SSH git URL", "git_remote", { reason: "invalid" });
}

function stripBrackets(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/** Removes every occurrence of the remote's credentials from a message (git errors echo URLs). */
export function scrub(message: string, spec: RemoteSpec | null): string {
  let out = message.replace(/(https?:\/\/)[^/@\s]*@/gi, "$1");
  if (spec?.auth?.password) out = out.split(spec.auth.password).join("***");
  return out;
}

/**
 * Refuses remotes whose host resolves to a private, loopback or link-local address (unless the
 * operator allows them), so a workspace admin cannot make the server probe its own network.
 * Every resolved address is checked, not just the first: a name with one public and one private
 * record is refused.
 */
export async function assertRemoteAllowed(spec: RemoteSpec, allowPrivate: boolean): Promise<void> {
  if (spec.kind === "local") return; // set by the operator through `quire init` only
  if (allowPrivate || spec.host === null) return;
  const host = spec.host.toLowerCase();
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    if (host === "localhost" || host.endsWith(".localhost")) throw privateRefused();
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      throw new ValidationError(`git_remote: the host ${host} could not be resolved`, "git_remote", { reason: "unreachable" });
    }
  }
  if (addresses.length === 0 || addresses.some(isPrivateAddress)) throw privateRefused();
}

const privateRefused = () =>
  new ValidationError(
    "git_remote: remotes on private, loopback or link-local addresses are refused (set GIT_ALLOWLIST_PRIVATE=true to allow them)",
    "git_remote",
    { reason: "private_network" },
  );

export function isPrivateAddress(address: string): boolean {
  const v = isIP(address);
  if (v === 4) return privateV4(address);
  if (v !== 6) return true;
  const a = address.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) return privateV4(mapped[1]!);
  if (a === "::" || a === "::1") return true;
  const first = parseInt(a.split(":")[0] || "0", 16);
  if ((first & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((first & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((first & 0xffc0) === 0xfec0) return true; // fec0::/10 site-local (deprecated)
  return false;
}

function privateV4(address: string): boolean {
  const [a, b] = address.split(".").map(Number) as [number, number];
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
    a >= 224 // multicast and reserved
  );
}
