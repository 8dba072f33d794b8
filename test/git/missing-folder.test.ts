/**
 * A workspace folder that vanished (an unmounted volume, a mistaken rm) must stay visibly missing:
 * git never creates it again behind the reconciler's back, so the safety stop reports it and no
 * record is deleted.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, renameSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { registerUser } from "../helpers/factories.ts";

const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

test("after a restart with the workspace folder gone, git does not recreate it and no page is lost", async () => {
  const first = await startTestServer({}, { keepDir: true });
  servers.push(first);
  const user = await registerUser(first.url);
  await first.services.gitSync.idle();
  const dir = join(first.dataDir, "workspaces", user.workspaceId);
  expect(existsSync(join(dir, ".git", "HEAD"))).toBe(true);
  const livePages = (s: TestServer) =>
    s.services.db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM pages WHERE workspace_id = ? AND deleted_at IS NULL").get(user.workspaceId)!.n;
  const before = livePages(first);
  expect(before).toBeGreaterThan(0);
  await first.stop(1000);

  renameSync(dir, dir + ".away");
  const second = await startTestServer({}, { dataDir: first.dataDir });
  servers.push(second);
  await second.services.reconciler.reconcile(user.workspaceId).catch(() => undefined);
  await second.services.gitSync.idle();
  await Bun.sleep(200);
  expect(existsSync(dir)).toBe(false);
  expect(second.services.reconciler.lastResult(user.workspaceId)?.aborted).toBe(true);
  expect(livePages(second)).toBe(before);
});
