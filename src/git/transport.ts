import * as fs from "node:fs";
import { loadGit } from "./repo.ts";
import { runGit, type SshOptions } from "./native-git.ts";
import { scrub, type RemoteSpec } from "./remote-url.ts";
import { RemoteError } from "../core/net/remote-error.ts";
import { RemoteNetwork } from "../core/net/remote-network.ts";
import { guardedHttpClient } from "../core/net/guarded-http.ts";

export { RemoteError } from "../core/net/remote-error.ts";

/**
 * Moving commits between the work tree's repository and its remote. HTTP(S) goes through
 * isomorphic-git; SSH and local paths through the native git binary. Both write the same
 * `.git/` layout, so everything else (history, diffs) is isomorphic-git whatever the remote.
 * Credentials are handed over at the call (basic auth) and never written to `.git/config`.
 *
 * Every connection is checked against `network` right before it is made (HTTP: each request and
 * redirect hop, connecting only to the checked addresses; native git: the remote's host before
 * each run), not only when the remote was saved.
 */
export const trackingRef = (branch: string) => `refs/remotes/origin/${branch}`;

/**
 * isomorphic-git's HTTP client has no timeout of its own: a remote that never answers must not
 * hold a workspace's sync (or a create request) forever.
 */
const HTTP_TIMEOUT_MS = 60_000;
function withTimeout<T>(work: Promise<T>, ms = HTTP_TIMEOUT_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RemoteError(`the remote did not answer within ${ms / 1000} s`, "unreachable")), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export class Transport {
  /** Public so a test server can swap the address classification (see RemoteNetwork). */
  network: RemoteNetwork;

  constructor(
    private readonly ssh: SshOptions,
    network: RemoteNetwork | boolean = false,
  ) {
    this.network = typeof network === "boolean" ? new RemoteNetwork(network) : network;
  }

  /** A client bound to the current network policy, made per transfer so a swapped policy applies at once. */
  private http() {
    return guardedHttpClient(this.network);
  }

  /**
   * Fetches `branch` into refs/remotes/origin/<branch>. Returns the remote tip, or null when the
   * remote is empty (no branches at all). A missing branch on a non-empty remote is an error.
   */
  async fetch(dir: string, spec: RemoteSpec, branch: string): Promise<string | null> {
    const git = await loadGit();
    if (spec.kind === "http") {
      const http = this.http();
      let heads: string[];
      try {
        const refs = await withTimeout(git.listServerRefs({ http, url: spec.url, prefix: "refs/heads/", onAuth: this.onAuth(spec), onAuthFailure: () => ({ cancel: true }) }));
        heads = refs.map((r) => r.ref);
      } catch (error) {
        throw this.classify(error, spec);
      }
      if (heads.length === 0) return null;
      if (!heads.includes(`refs/heads/${branch}`)) throw new RemoteError(`the branch ${branch} does not exist on the remote`, "branch_not_found");
      await git.setConfig({ fs, dir, path: "remote.origin.url", value: spec.url });
      await git.setConfig({ fs, dir, path: "remote.origin.fetch", value: "+refs/heads/*:refs/remotes/origin/*" });
      try {
        await withTimeout(git.fetch({
          fs,
          http,
          dir,
          url: spec.url,
          ref: branch,
          remoteRef: branch,
          remote: "origin",
          singleBranch: true,
          tags: false,
          onAuth: this.onAuth(spec),
          onAuthFailure: () => ({ cancel: true }),
        }));
      } catch (error) {
        throw this.classify(error, spec);
      }
      return git.resolveRef({ fs, dir, ref: trackingRef(branch) });
    }
    await this.checkNative(spec);
    const heads = await this.native(["ls-remote", "--heads", spec.url], dir, spec);
    const lines = heads.stdout.split("\n").filter((l) => l.trim() !== "");
    if (lines.length === 0) return null;
    if (!lines.some((l) => l.endsWith(`\trefs/heads/${branch}`))) throw new RemoteError(`the branch ${branch} does not exist on the remote`, "branch_not_found");
    await this.native(["fetch", "--quiet", "--no-tags", spec.url, `+refs/heads/${branch}:${trackingRef(branch)}`], dir, spec);
    return git.resolveRef({ fs, dir, ref: trackingRef(branch) });
  }

  /** Pushes `oid` to the remote branch; never forced. A remote that moved on is `rejected`. */
  async push(dir: string, spec: RemoteSpec, branch: string, oid: string): Promise<void> {
    const git = await loadGit();
    if (spec.kind === "http") {
      const http = this.http();
      // isomorphic-git pushes a ref, not an oid: a scratch ref pins exactly what was decided.
      const scratch = `refs/quire/push`;
      await git.writeRef({ fs, dir, ref: scratch, value: oid, force: true });
      let result;
      try {
        result = await withTimeout(
          git.push({ fs, http, dir, url: spec.url, ref: scratch, remoteRef: `refs/heads/${branch}`, onAuth: this.onAuth(spec), onAuthFailure: () => ({ cancel: true }) }),
          2 * HTTP_TIMEOUT_MS,
        );
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code === "PushRejectedError") throw new RemoteError("the remote branch moved on", "rejected");
        throw this.classify(error, spec);
      }
      if (!result.ok) {
        const detail = Object.values(result.refs ?? {}).map((r) => r.error ?? "").join(" ");
        if (/non-fast-forward|fetch first|rejected/i.test(detail)) throw new RemoteError("the remote branch moved on", "rejected");
        throw new RemoteError(`push failed: ${scrub(result.error ?? detail, spec)}`, "failed");
      }
      await git.writeRef({ fs, dir, ref: trackingRef(branch), value: oid, force: true });
      return;
    }
    await this.checkNative(spec);
    const r = await runGit(["push", "--quiet", "--porcelain", spec.url, `${oid}:refs/heads/${branch}`], { cwd: dir, ssh: this.ssh });
    if (r.code !== 0) {
      const text = `${r.stdout}\n${r.stderr}`;
      if (/non-fast-forward|fetch first|\[rejected\]/i.test(text)) throw new RemoteError("the remote branch moved on", "rejected");
      throw this.nativeError(r.stderr, spec);
    }
    await git.writeRef({ fs, dir, ref: trackingRef(branch), value: oid, force: true });
  }

  /** The host of an SSH remote, checked before each native run (local paths are the operator's). */
  private async checkNative(spec: RemoteSpec): Promise<void> {
    if (spec.kind === "ssh" && spec.host !== null) await this.network.resolve(spec.host);
  }

  private async native(args: string[], cwd: string, spec: RemoteSpec) {
    let r;
    try {
      r = await runGit(args, { cwd, ssh: this.ssh });
    } catch (error) {
      throw new RemoteError((error as Error).message, "git_missing");
    }
    if (r.code !== 0) throw this.nativeError(r.stderr, spec);
    return r;
  }

  private nativeError(stderr: string, spec: RemoteSpec): RemoteError {
    const text = scrub(stderr.trim().split("\n").slice(-3).join(" "), spec);
    if (/permission denied|authentication|could not read from remote|host key verification/i.test(stderr)) {
      return new RemoteError(`the remote refused access: ${text}`, "auth");
    }
    return new RemoteError(`the remote could not be reached: ${text}`, "unreachable");
  }

  private onAuth(spec: RemoteSpec) {
    return () => (spec.auth ? { username: spec.auth.username, password: spec.auth.password } : { cancel: true });
  }

  private classify(error: unknown, spec: RemoteSpec): RemoteError {
    if (error instanceof RemoteError) return error;
    const e = error as { code?: string; message?: string; data?: { statusCode?: number } };
    const message = scrub(e.message ?? String(error), spec);
    if (e.code === "HttpError" && (e.data?.statusCode === 401 || e.data?.statusCode === 403)) {
      return new RemoteError("the remote refused the credentials", "auth");
    }
    if (e.code === "UserCanceledError") return new RemoteError("the remote needs credentials that were refused or not given", "auth");
    return new RemoteError(`the remote could not be reached: ${message}`, "unreachable");
  }
}
