import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { ValidationError } from "../core/errors.ts";
import { Repo } from "./repo.ts";
import { assertRemoteAllowed, parseRemote, scrub } from "./remote-url.ts";
import { RemoteError, type Transport } from "./transport.ts";

/**
 * Makes `dir` a clone of `remote`'s `branch`: init, fetch, check out. Used by workspace create
 * (API) and `quire init --git-url`. The folder must be new or empty. On any failure the folder
 * is removed again and a ValidationError on `git_remote` says why (details.reason:
 * private_network, unreachable, auth, branch_not_found, git_missing, failed): the remote given
 * with the request is what could not be used. An empty remote is fine: the first push fills it.
 */
export async function cloneInto(opts: {
  dir: string;
  remote: string;
  /** The workspace's stored HTTPS token, if any (basic-auth password). */
  token?: string | null;
  branch: string;
  transport: Transport;
  allowPrivate: boolean;
}): Promise<{ head: string | null }> {
  const spec = parseRemote(opts.remote, opts.token ?? null);
  await assertRemoteAllowed(spec, opts.allowPrivate, opts.transport.network);
  if (existsSync(opts.dir) && readdirSync(opts.dir).length > 0) {
    throw new ValidationError("git_remote: the workspace folder is not empty; cannot clone into it", "git_remote", { reason: "failed" });
  }
  mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
  const repo = new Repo(opts.dir);
  try {
    await repo.init(opts.branch);
    await repo.setRemote(spec.url);
    const head = await opts.transport.fetch(opts.dir, spec, opts.branch);
    if (head !== null) await repo.checkoutCommit(opts.branch, head);
    return { head };
  } catch (error) {
    rmSync(opts.dir, { recursive: true, force: true });
    if (error instanceof RemoteError) {
      throw new ValidationError(`git_remote: could not clone the repository: ${error.message}`, "git_remote", { reason: error.reason });
    }
    throw new ValidationError(`git_remote: could not clone the repository: ${scrub((error as Error).message, spec)}`, "git_remote", { reason: "failed" });
  }
}
