/**
 * Whether a git remote is known to be public: its host's public repository API answers for it
 * without credentials. Only github.com and gitlab.com are asked (fixed API hosts, never the
 * remote's own address, so nothing here reaches a private network); any other host, or no answer
 * within 3 s, is "not known" and the admin must confirm instead (docs/decisions/restricted-folders.md).
 */
export async function knownPublicRemote(remote: string): Promise<boolean> {
  const repo = hostedRepo(remote);
  if (!repo) return false;
  const url =
    repo.host === "github.com"
      ? `https://api.github.com/repos/${repo.owner}/${repo.name}`
      : `https://gitlab.com/api/v4/projects/${encodeURIComponent(`${repo.owner}/${repo.name}`)}`;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(3000), headers: { accept: "application/json" }, redirect: "error" });
    if (res.status !== 200) return false;
    const body = (await res.json()) as { private?: boolean; visibility?: string };
    return body.private === false || body.visibility === "public";
  } catch {
    return false;
  }
}

function hostedRepo(remote: string): { host: string; owner: string; name: string } | null {
  const m = /^(?:https?:\/\/(?:[^@/]+@)?|ssh:\/\/git@|git@)(github\.com|gitlab\.com)[:/]([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(?:\.git)?\/?$/.exec(remote.trim());
  return m ? { host: m[1]!, owner: m[2]!, name: m[3]! } : null;
}
