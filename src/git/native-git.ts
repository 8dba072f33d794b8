import { gitBinary } from "../ops/readiness.ts";

/**
 * The native `git` binary, for the remotes isomorphic-git cannot reach (SSH, local paths). Always
 * spawned asynchronously: a synchronous spawn would stall the event loop (and deadlock against a
 * git server living in the same process). No prompts, no user or system configuration.
 */
export interface SshOptions {
  keyPath?: string | undefined;
  knownHosts?: string | undefined;
}

class GitMissingError extends Error {
  constructor() {
    super("the git command is not installed on this server; SSH and local-path remotes need it (install git, e.g. apt-get install git)");
  }
}

interface NativeResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Quotes one argument for the shell line that GIT_SSH_COMMAND is. */
const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export function sshCommand(ssh: SshOptions): string {
  const parts = ["ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=15"];
  if (ssh.keyPath) parts.push("-i", shq(ssh.keyPath), "-o", "IdentitiesOnly=yes");
  if (ssh.knownHosts) parts.push("-o", `UserKnownHostsFile=${shq(ssh.knownHosts)}`, "-o", "StrictHostKeyChecking=yes");
  else parts.push("-o", "StrictHostKeyChecking=yes");
  return parts.join(" ");
}

function gitEnv(ssh: SshOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("GIT_")) env[k] = v;
  Object.assign(env, {
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "/bin/false",
    SSH_ASKPASS: "/bin/false",
    GIT_SSH_COMMAND: sshCommand(ssh),
    GIT_PROTOCOL: "version=2",
  });
  return env;
}

export async function runGit(args: string[], opts: { cwd?: string; ssh?: SshOptions; timeoutMs?: number } = {}): Promise<NativeResult> {
  const bin = gitBinary();
  if (bin === null) throw new GitMissingError();
  const proc = Bun.spawn([bin, ...args], { cwd: opts.cwd, env: gitEnv(opts.ssh ?? {}), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill(), opts.timeoutMs ?? 120_000);
  try {
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { code, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A long-running local git command whose output is read as a stream (a whole history's log, a
 * `cat-file --batch` answering requests); null when the binary is missing. Same environment as
 * runGit; stderr is dropped (a failure shows as output ending early, which the reader handles).
 */
export function spawnGit(args: string[], cwd: string) {
  const bin = gitBinary();
  if (bin === null) return null;
  return Bun.spawn([bin, ...args], { cwd, env: gitEnv({}), stdin: "pipe", stdout: "pipe", stderr: "ignore" });
}
