/**
 * A loopback stand-in for a GitHub Enterprise Server or a self-managed GitLab: one web host that
 * serves each repository's git traffic (passed on to a real smart-HTTP remote) and the public
 * repository API at `/api/v3` (GitHub) or `/api/v4` (GitLab), answering without credentials as the
 * real ones document: a public repository's JSON, or 404 for a private or unknown one.
 */
import type { GitHttpRemote } from "../../helpers/git-remote.ts";

export interface StandinRepo {
  visibility: "public" | "private";
  /** Where `/<path>.git/…` is passed on to, for a workspace cloned from this host. */
  git?: GitHttpRemote;
  /** Held this long before the API answers (a slow forge). */
  delayMs?: number;
  /** Answers the API request instead (an error, a redirect, an oversized body). */
  answer?: (base: string) => Response;
}

export interface ForgeStandin {
  /** `http://127.0.0.1:<port>`: the web host remotes use. */
  url: string;
  /** The API base to configure (GITHUB_API_URL / GITLAB_API_URL). */
  api: string;
  /** A workspace's remote for `path` on this host. */
  remote(path: string): string;
  /** API requests received, e.g. `GET /api/v3/repos/acme/handbook`. */
  apiRequests: string[];
  stop(): Promise<void>;
}

export function startForgeStandin(kind: "github" | "gitlab", repos: Record<string, StandinRepo>): ForgeStandin {
  const apiPrefix = kind === "github" ? "/api/v3" : "/api/v4";
  const apiRequests: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 60,
    async fetch(req): Promise<Response> {
      const url = new URL(req.url);
      const base = url.origin;
      if (url.pathname.startsWith(`${apiPrefix}/`)) {
        apiRequests.push(`${req.method} ${url.pathname}`);
        const path = kind === "github" ? githubRepoPath(url.pathname) : gitlabProjectPath(url.pathname);
        const repo = path === null ? undefined : repos[path];
        if (repo?.delayMs) await Bun.sleep(repo.delayMs);
        if (repo?.answer) return repo.answer(base);
        if (repo?.visibility === "public") return Response.json(kind === "github" ? githubRepo(base, path!) : gitlabProject(base, path!));
        return kind === "github"
          ? Response.json({ message: "Not Found", documentation_url: "https://docs.github.com/rest/repos/repos#get-a-repository", status: "404" }, { status: 404 })
          : Response.json({ message: "404 Project Not Found" }, { status: 404 });
      }
      for (const [path, repo] of Object.entries(repos)) {
        const prefix = `/${path}.git`;
        if (!repo.git || !url.pathname.startsWith(`${prefix}/`)) continue;
        const headers = new Headers(req.headers);
        headers.delete("host");
        const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
        const res = await fetch(`${repo.git.url}${url.pathname.slice(prefix.length)}${url.search}`, { method: req.method, headers, body });
        return new Response(res.body, { status: res.status, headers: res.headers });
      }
      return new Response("not found\n", { status: 404 });
    },
  });
  const url = `http://127.0.0.1:${server.port}`;
  return {
    url,
    api: `${url}${apiPrefix}`,
    remote: (path) => `${url}/${path}.git`,
    apiRequests,
    stop: () => server.stop(true),
  };
}

/** `GET /repos/{owner}/{repo}` */
function githubRepoPath(pathname: string): string | null {
  const m = /^\/api\/v3\/repos\/([^/]+)\/([^/]+)$/.exec(pathname);
  return m ? `${m[1]}/${m[2]}` : null;
}

/** `GET /projects/{id}`, the path given URL-encoded (GitLab answers 404 to a raw `/` in it). */
function gitlabProjectPath(pathname: string): string | null {
  const m = /^\/api\/v4\/projects\/([^/]+)$/.exec(pathname);
  return m ? decodeURIComponent(m[1]!) : null;
}

/** The fields of GitHub's "Get a repository" answer that matter here, and a few around them. */
function githubRepo(base: string, path: string) {
  const [owner, name] = path.split("/");
  return {
    id: 1296269,
    name,
    full_name: path,
    owner: { login: owner, type: "Organization" },
    private: false,
    visibility: "public",
    html_url: `${base}/${path}`,
    clone_url: `${base}/${path}.git`,
    default_branch: "main",
  };
}

/** The fields of GitLab's "Get a single project" answer that matter here, and a few around them. */
function gitlabProject(base: string, path: string) {
  return {
    id: 278964,
    name: path.split("/").at(-1),
    path_with_namespace: path,
    visibility: "public",
    web_url: `${base}/${path}`,
    http_url_to_repo: `${base}/${path}.git`,
    default_branch: "main",
  };
}
