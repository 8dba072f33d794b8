/**
 * Which public repository API, if any, can say whether a git remote is public: a remote on the web
 * host of the configured GitHub API (GITHUB_API_URL) or GitLab API (GITLAB_API_URL) maps to that
 * API's repository endpoint; every other remote maps to nothing (docs/decisions/restricted-folders.md).
 */

/** One configured forge: where its repositories' remotes live and where its API answers for them. */
interface Forge {
  kind: "github" | "gitlab";
  /** The API base, without a trailing slash (`https://api.github.com`, `https://gitlab.com/api/v4`). */
  api: string;
  /** The web host remotes use, with a port when not the default (`github.com`, `ghe.example.com:8443`). */
  host: string;
  /** Its name alone: an SSH remote's port is the SSH server's, never the web one's. */
  hostname: string;
  /** The web path the forge is served under (`/gitlab` for a relative URL root), else "". */
  prefix: string;
}

/** A repository path segment on either forge; anything else is not a repository address. */
const SEGMENT = /^[A-Za-z0-9_.-]+$/;
/** GitLab nests groups up to 20 deep; a longer path is not one of its projects. */
const MAX_GITLAB_DEPTH = 21;

export function forges(githubApiUrl: string, gitlabApiUrl: string): Forge[] {
  return [forgeOf("github", githubApiUrl, "/api/v3"), forgeOf("gitlab", gitlabApiUrl, "/api/v4")];
}

/**
 * The web side of an API base: GitHub's cloud API is on `api.<host>` (github.com, GHE.com), GitHub
 * Enterprise Server's at `<web>/api/v3`, GitLab's at `<web>/api/v4`.
 */
function forgeOf(kind: Forge["kind"], api: string, suffix: string): Forge {
  const u = new URL(api);
  const path = u.pathname.replace(/\/+$/, "");
  let hostname = u.hostname;
  let prefix = path;
  if (path.endsWith(suffix)) prefix = path.slice(0, -suffix.length);
  else if (kind === "github" && path === "" && hostname.startsWith("api.")) hostname = hostname.slice("api.".length);
  const host = u.port ? `${hostname}:${u.port}` : hostname;
  return { kind, api: `${u.origin}${path}`, host: host.toLowerCase(), hostname: hostname.toLowerCase(), prefix };
}

/** The URL of the API's public answer for `remote`'s repository, or null when no configured forge hosts it. */
export function repositoryApiUrl(remote: string, known: Forge[]): string | null {
  const where = locate(remote.trim());
  if (!where) return null;
  for (const forge of known) {
    const onHost = where.ssh ? where.hostname === forge.hostname : where.host === forge.host;
    if (!onHost) continue;
    if (forge.prefix !== "" && !where.path.startsWith(`${forge.prefix}/`)) continue;
    const segments = where.path.slice(forge.prefix.length).replace(/^\/+|\/+$/g, "").replace(/\.git$/, "").split("/");
    if (!segments.every((s) => SEGMENT.test(s) && s !== "." && s !== "..")) return null;
    if (forge.kind === "github") {
      return segments.length === 2 ? `${forge.api}/repos/${segments[0]}/${segments[1]}` : null;
    }
    return segments.length >= 2 && segments.length <= MAX_GITLAB_DEPTH ? `${forge.api}/projects/${encodeURIComponent(segments.join("/"))}` : null;
  }
  return null;
}

/** The host and path of a remote URL (`https://…`, `ssh://…`, `git://…`) or an scp-like `user@host:path`. */
function locate(remote: string): { host: string; hostname: string; path: string; ssh: boolean } | null {
  if (!remote.includes("://")) {
    const scp = /^(?:[^@/:\s]+@)?([A-Za-z0-9.-]+):(\S+)$/.exec(remote);
    if (!scp) return null;
    const hostname = scp[1]!.toLowerCase();
    return { host: hostname, hostname, path: `/${scp[2]!.replace(/^\/+/, "")}`, ssh: true };
  }
  let u: URL;
  try {
    u = new URL(remote);
  } catch {
    return null;
  }
  const ssh = u.protocol === "ssh:" || u.protocol === "git+ssh:";
  if (!ssh && !["https:", "http:", "git:"].includes(u.protocol)) return null;
  if (u.search || u.hash) return null;
  // The path stays percent-encoded: an encoded character fails the segment check rather than
  // smuggling a "/" into the repository name.
  return { host: u.host.toLowerCase(), hostname: u.hostname.toLowerCase(), path: u.pathname, ssh: ssh || u.protocol === "git:" };
}
