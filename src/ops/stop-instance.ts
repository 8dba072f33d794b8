/**
 * `quire stop` as a function: ask the verified instance to shut down, wait for its lock to be
 * released, and escalate only when it is safe to. Nothing is signalled unless `signalTarget`
 * (instance-probe.ts) names the pid positively; a stale run state — a dead pid, or a pid the
 * system has since given to another program — is never acted on.
 */
import { lockHeld, probeInstance, signalTarget, lockHolder } from "./instance-probe.ts";
import { controlStatus, requestStop } from "./control-client.ts";
import type { RunState } from "./runstate.ts";

export const STOP_WAIT_MS = 30_000;

type StopOutcome =
  | { result: "not_running"; message: string }
  | { result: "stopped"; message: string; via: "control" | "sigterm" | "sigkill" }
  | { result: "refused"; message: string }
  | { result: "timeout"; message: string };

async function released(dataDir: string, ms: number, platform: NodeJS.Platform): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (!lockHeld(dataDir, platform)) return true;
    if (Date.now() >= until) return false;
    await Bun.sleep(50);
  }
}

/** Sends the signal; a message when the system refused it (another user's process). */
function signal(pid: number, sig: "SIGTERM" | "SIGKILL"): string | null {
  try {
    process.kill(pid, sig);
    return null;
  } catch (error) {
    return `could not send ${sig} to pid ${pid} (${(error as NodeJS.ErrnoException).code ?? String(error)}); run quire stop as the user running the server`;
  }
}

/**
 * `platform` decides what a signal may do: on Windows a "SIGTERM" is TerminateProcess, which ends
 * the server at once without its drain, so there a server whose control endpoint does not answer is
 * never signalled. Tests pass another platform to run its branch here.
 */
export async function stopInstance(
  dataDir: string,
  opts: { force?: boolean; waitMs?: number; platform?: NodeJS.Platform } = {},
): Promise<StopOutcome> {
  const waitMs = opts.waitMs ?? STOP_WAIT_MS;
  const platform = opts.platform ?? process.platform;
  const probe = await probeInstance(dataDir);
  if (probe.state === "none") {
    const stale = probe.stale ? ` (runstate.json names pid ${probe.runstate!.pid}, which no longer holds the data directory; nothing was signalled)` : "";
    return { result: "not_running", message: `nothing is running on ${dataDir}${stale}` };
  }
  if (probe.state === "unconfirmed") {
    return { result: "refused", message: `identity unconfirmed: ${probe.reason}; nothing was signalled` };
  }
  const state = probe.runstate;
  let via: "control" | "sigterm";
  const asked = await requestStop(dataDir, state);
  if (asked.ok) {
    via = "control";
  } else {
    // The control endpoint is unavailable. If the instance has meanwhile stopped answering (its
    // answer to our request was lost while it began shutting down), a signal would only cut its
    // drain short: wait for it instead. Otherwise SIGTERM — only to the positively identified holder.
    const now = await probeInstance(dataDir, 1000);
    if (now.state !== "confirmed" || now.runstate.instance_id !== state.instance_id) {
      return finish(dataDir, state, "control", waitMs, opts.force === true, platform);
    }
    if (platform === "win32") {
      // No lock table names the holder there, and the only signal is TerminateProcess.
      return {
        result: "refused",
        message:
          `${asked.reason}; on Windows a signal would end the server at once, cutting its in-flight saves short, and pid ${state.pid} ` +
          "cannot be verified without the control endpoint, so nothing was signalled. Try quire stop again; if the server hangs, end it with taskkill /PID " +
          `${state.pid} /F`,
      };
    }
    const status = await controlStatus(dataDir, state, 500);
    const pid = signalTarget(dataDir, probe, status.ok ? status.value.pid : undefined, platform);
    if (pid === null) {
      return { result: "refused", message: `${asked.reason}, and pid ${state.pid} could not be verified as the lock's holder; nothing was signalled` };
    }
    const refused = signal(pid, "SIGTERM");
    if (refused) return { result: "refused", message: refused };
    via = "sigterm";
  }
  return finish(dataDir, state, via, waitMs, opts.force === true, platform);
}

/** Waits for the lock to be released; after the full wait, with `force`, kills the verified holder. */
async function finish(
  dataDir: string,
  state: RunState,
  via: "control" | "sigterm",
  waitMs: number,
  force: boolean,
  platform: NodeJS.Platform,
): Promise<StopOutcome> {
  if (await released(dataDir, waitMs, platform)) {
    return { result: "stopped", via, message: `stopped the instance on port ${state.port} (pid ${state.pid})` };
  }
  if (!force) {
    return { result: "timeout", message: `the instance (pid ${state.pid}) did not stop within ${waitMs / 1000} s; run again with --force to kill it` };
  }
  // --force after the full wait: verify again right before the kill (the holder must not have changed).
  const again = await probeInstance(dataDir, 500);
  const holder = lockHolder(dataDir, platform);
  const confirmed = again.state === "confirmed" && again.runstate.instance_id === state.instance_id;
  // Where no lock table names the holder (macOS, Windows), the control endpoint's authenticated
  // answer does, as for the SIGTERM above.
  const status = confirmed && holder === undefined ? await controlStatus(dataDir, state, 500) : null;
  // A hung server may no longer answer its health check: then the kernel's lock table is the proof.
  const pid = confirmed ? signalTarget(dataDir, again, status?.ok ? status.value.pid : undefined, platform) : holder === state.pid ? state.pid : null;
  if (pid === null || pid !== state.pid) {
    return { result: "refused", message: `the instance did not stop within ${waitMs / 1000} s and pid ${state.pid} can no longer be verified; nothing was killed` };
  }
  const refused = signal(pid, "SIGKILL");
  if (refused) return { result: "refused", message: refused };
  if (await released(dataDir, 5000, platform)) {
    return { result: "stopped", via: "sigkill", message: `killed the instance (pid ${pid}) after ${waitMs / 1000} s` };
  }
  return { result: "timeout", message: `pid ${pid} still holds the data directory after SIGKILL` };
}
