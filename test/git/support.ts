import type { WorkspaceEvent } from "../../src/core/event-bus.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { IdeClone, startGitHttpRemote, type GitHttpRemote } from "../helpers/git-remote.ts";

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

/**
 * Records the events the bus publishes for one workspace (what its WebSocket clients receive). Only
 * that one: a file's tests share the server, and another workspace's pull or reconcile may publish
 * at any moment.
 */
export function recordEvents(server: TestServer, workspaceId: string): WorkspaceEvent[] {
  const events: WorkspaceEvent[] = [];
  server.services.bus.onEvent((e) => {
    if (e.workspace_id === workspaceId) events.push(e);
  });
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

/** A server with one workspace cloned from a fresh loopback remote, and an IDE's clone of that remote. */
export interface RemoteWorkspace {
  server: TestServer;
  owner: TestUser;
  remote: GitHttpRemote;
  ide: IdeClone;
  ws: { id: string; slug: string };
  /** The workspace's work tree. */
  dir: string;
  close(): Promise<void>;
}

export async function remoteWorkspace(slug: string): Promise<RemoteWorkspace> {
  const server = await startTestServer(GIT_ENV);
  const owner = await registerUser(server.url, { name: "Grace Hopper", email: "grace@example.test" });
  const remote = await startGitHttpRemote({ branch: "main" });
  const ws = (await createFromRemote(owner, slug, remote.url)).body;
  await settled(server);
  const ide = await IdeClone.clone(remote.url);
  return {
    server,
    owner,
    remote,
    ide,
    ws,
    dir: server.services.ledger.dir(ws.id).root,
    async close() {
      await server.close();
      await ide.close();
      await remote.close();
    },
  };
}
