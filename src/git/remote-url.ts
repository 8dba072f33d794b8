import { isAbsolute } from "node:path";
import { ValidationError } from "../core/errors.ts";
import { RemoteError } from "../core/net/remote-error.ts";
import { RemoteNetwork } from "../core/net/remote-network.ts";

export { isPrivateAddress } from "../core/net/address-class.ts";

/**
 * A workspace's git remote, taken apart once: which engine speaks it, which host it reaches, and
 * the credentials it carries (kept apart so they are never logged or shown).
 *
 * - `http`: http(s) URLs — isomorphic-git's HTTP client; basic auth from the workspace's stored
 *   token (password; the URL's user name or `x-access-token` as user name) or else from the URL's
 *   user:password.
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

/** The user name sent with a stored token when the URL names none (GitHub and GitLab accept it). */
const TOKEN_USERNAME = "x-access-token";

export function parseRemote(stored: string, token: string | null = null): RemoteSpec {
  if (isAbsolute(stored)) return { kind: "local", url: stored, host: null, auth: null };
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(stored)?.[1]?.toLowerCase();
  if (scheme === "http" || scheme === "https") {
    const u = new URL(stored);
    const username = decodeURIComponent(u.username);
    const auth = token
      ? { username: username || TOKEN_USERNAME, password: token }
      : u.username || u.password
        ? { username, password: decodeURIComponent(u.password) }
        : null;
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
 * record is refused. This is the early check when a remote is given or a sync starts; the
 * transport checks again at every connection (see RemoteNetwork).
 */
export async function assertRemoteAllowed(spec: RemoteSpec, allowPrivate: boolean, network = new RemoteNetwork(allowPrivate)): Promise<void> {
  if (spec.kind === "local") return; // set by the operator through `quire init` only
  if (network.allowPrivate || spec.host === null) return;
  try {
    await network.resolve(spec.host);
  } catch (error) {
    if (error instanceof RemoteError) throw new ValidationError(`git_remote: ${error.message}`, "git_remote", { reason: error.reason });
    throw error;
  }
}
