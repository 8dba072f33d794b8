import type { WorkspaceEvent } from "../../src/realtime/event-bus.ts";
import type { TestServer } from "../helpers/server.ts";
import type { TestUser } from "../helpers/factories.ts";

/** Environment of the git sync tests: loopback remotes are allowed, pushes go out quickly. */
export const GIT_ENV = { GIT_ALLOWLIST_PRIVATE: "true" };

export async function waitFor<T>(probe: () => Promise<T | null | undefined | false> | T | null | undefined | false, ms = 5000, what = "condition"): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

/** Records every event the bus publishes (what WebSocket clients of the workspace receive). */
export function recordEvents(server: TestServer): WorkspaceEvent[] {
  const events: WorkspaceEvent[] = [];
  server.services.bus.onEvent((e) => events.push(e));
  return events;
}

/** Creates a workspace cloned from `remote` through the API. */
export async function createFromRemote(owner: TestUser, slug: string, remote: string, branch = "main") {
  return owner.client.post("/api/v1/workspaces", { name: `WS ${slug}`, slug, git_remote: remote, git_branch: branch });
}

/** Waits until nothing git-related is queued (commits done, pushes out, pulls finished). */
export const settled = (server: TestServer) => server.services.gitSync.idle();

export function row(server: TestServer, id: string): any {
  return server.services.db.query<any, [string]>("SELECT * FROM workspaces WHERE id = ?").get(id);
}
