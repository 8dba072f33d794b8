/** Why moving commits to or from a remote failed; `reason` becomes `details.reason` where a request sees it. */
export class RemoteError extends Error {
  constructor(
    message: string,
    readonly reason: "unreachable" | "auth" | "branch_not_found" | "rejected" | "git_missing" | "failed" | "private_network",
  ) {
    super(message);
  }
}
