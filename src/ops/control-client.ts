/** The CLI side of the control endpoint (control.ts): authenticated requests to 127.0.0.1. */
import { CONTROL_HOST, type ControlStatus } from "./control.ts";
import { readControlToken, type RunState } from "./runstate.ts";

type ControlAnswer<T> = { ok: true; value: T } | { ok: false; reason: string };

async function call(dataDir: string, state: RunState, method: string, path: string, timeoutMs: number): Promise<ControlAnswer<unknown>> {
  if (!state.control_port) return { ok: false, reason: "the running instance records no control endpoint" };
  let token: string | null;
  try {
    token = readControlToken(dataDir);
  } catch (error) {
    return { ok: false, reason: `control.token cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
  }
  if (!token) return { ok: false, reason: "control.token is missing" };
  try {
    const response = await fetch(`http://${CONTROL_HOST}:${state.control_port}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) return { ok: false, reason: `the control endpoint answered ${response.status}` };
    return { ok: true, value: await response.json() };
  } catch (error) {
    return { ok: false, reason: `the control endpoint did not answer (${(error as Error).name})` };
  }
}

/** The instance's own account of itself (its pid, above all), authenticated by the token. */
export async function controlStatus(dataDir: string, state: RunState, timeoutMs = 1500): Promise<ControlAnswer<ControlStatus>> {
  return (await call(dataDir, state, "GET", "/status", timeoutMs)) as ControlAnswer<ControlStatus>;
}

/** Asks for a graceful shutdown; ok once the instance has accepted the request. */
export async function requestStop(dataDir: string, state: RunState, timeoutMs = 3000): Promise<ControlAnswer<unknown>> {
  return call(dataDir, state, "POST", "/stop", timeoutMs);
}
