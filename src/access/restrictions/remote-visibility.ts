import type { IncomingMessage } from "node:http";
import { send } from "../../core/net/guarded-http.ts";
import { RemoteNetwork } from "../../core/net/remote-network.ts";
import { forges, repositoryApiUrl } from "./hosted-repo.ts";

/** The whole question (resolve, connect, headers, body) gets this long; then the answer is "not known". */
const ANSWER_TIMEOUT_MS = 3000;
/** A repository's JSON is a few KB on either forge; a larger answer is not read. */
const MAX_ANSWER_BYTES = 64 * 1024;

interface RemoteVisibilityConfig {
  /** GITHUB_API_URL (https://api.github.com by default). */
  githubApiUrl: string;
  /** GITLAB_API_URL (https://gitlab.com/api/v4 by default). */
  gitlabApiUrl: string;
  /** GIT_ALLOWLIST_PRIVATE: the APIs may be on private or loopback addresses, like remotes. */
  allowPrivate: boolean;
}

const DEFAULTS: RemoteVisibilityConfig = { githubApiUrl: "https://api.github.com", gitlabApiUrl: "https://gitlab.com/api/v4", allowPrivate: false };

/**
 * Whether a git remote is known to be public: the public repository API of the forge hosting it
 * answers for it without credentials (docs/decisions/restricted-folders.md). Only the configured
 * GitHub and GitLab APIs are asked, and only for remotes on their web hosts; the request goes
 * through the outbound guard (every resolved address checked, the socket pinned to them), follows
 * no redirect, sends no credentials, reads at most 64 KB and gives up after 3 s. Any other host,
 * any failure and any answer but a 200 saying "public" is "not known": the admin must confirm.
 */
export class RemoteVisibility {
  private readonly network: RemoteNetwork;
  private readonly known: ReturnType<typeof forges>;

  constructor(config: RemoteVisibilityConfig = DEFAULTS) {
    this.network = new RemoteNetwork(config.allowPrivate);
    this.known = forges(config.githubApiUrl, config.gitlabApiUrl);
  }

  /** The API address asked about `remote`, or null when no configured forge hosts it. */
  apiUrlFor(remote: string): string | null {
    return repositoryApiUrl(remote, this.known);
  }

  async knownPublic(remote: string): Promise<boolean> {
    const api = this.apiUrlFor(remote);
    if (api === null) return false;
    const url = new URL(api);
    const signal = AbortSignal.timeout(ANSWER_TIMEOUT_MS);
    let res: IncomingMessage | null = null;
    try {
      const addresses = await Promise.race([this.network.resolve(url.hostname), aborted(signal)]);
      res = await send(url, "GET", { accept: "application/json", "user-agent": "Quire" }, undefined, addresses, signal);
      // A redirect is not followed (a moved repository is answered for by its new name only after
      // a second, unchecked hop): not known.
      if (res.statusCode !== 200) return false;
      const declared = Number(res.headers["content-length"] ?? "");
      if (Number.isFinite(declared) && declared > MAX_ANSWER_BYTES) return false;
      const body = await Promise.race([readBounded(res), aborted(signal)]);
      if (body === null) return false;
      return isPublic(JSON.parse(body));
    } catch {
      // Unreachable, refused by the guard, too slow, too large or not JSON: nothing is known.
      return false;
    } finally {
      res?.destroy();
    }
  }
}

/**
 * GitHub says `visibility` ("public", "private", "internal") and `private`; GitLab says
 * `visibility` ("public", "internal", "private"). Without credentials only public repositories are
 * answered at all, but the field is still read rather than trusting the status alone.
 */
function isPublic(body: unknown): boolean {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return false;
  const { visibility, private: isPrivate } = body as { visibility?: unknown; private?: unknown };
  if (typeof visibility === "string") return visibility === "public" && isPrivate !== true;
  return isPrivate === false;
}

/** The body as text, or null past MAX_ANSWER_BYTES (a chunked answer has no length to check up front). */
async function readBounded(res: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_ANSWER_BYTES) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Rejects when `signal` fires: a DNS lookup takes no signal, so the deadline is raced against it. */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
}
