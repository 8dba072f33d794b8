/**
 * A burst of saves racing a webhook-triggered pull: the IDE has pushed, then 20 saves and the
 * provider's delivery arrive at once. Neither side is lost: every save is its own commit on the
 * remote, the IDE's commit is in Quire's history and its page readable, and both ends agree.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { git, tryGit, IdeClone, startGitHttpRemote, type GitHttpRemote } from "../helpers/git-remote.ts";
import { signGithub } from "../../src/git/webhook-signature.ts";
import { GIT_ENV, createFromRemote, row, settled, waitFor } from "./support.ts";

let server: TestServer;
let owner: TestUser;
let remote: GitHttpRemote;
let ide: IdeClone;
beforeAll(async () => {
  server = await startTestServer(GIT_ENV);
  owner = await registerUser(server.url, { name: "Katherine Johnson", email: "katherine@example.test" });
  remote = await startGitHttpRemote({ branch: "main" });
  ide = await IdeClone.clone(remote.url);
});
afterAll(async () => {
  await server.close();
  await ide.close();
  await remote.close();
});

const SAVES = 20;

test("20 saves racing a webhook-triggered pull: every save and the IDE's commit reach both sides", async () => {
  const ws = (await createFromRemote(owner, "burst", remote.url)).body;
  await settled(server);
  const secret = (await owner.client.get(`/api/v1/workspaces/${ws.id}/admin/settings`)).body.webhook_secret;
  const dir = server.services.ledger.dir(ws.id).root;

  await ide.pull();
  ide.writeFile("from-ide.md", "---\ntitle: From the IDE\n---\n\nPushed while the browser was busy.\n");
  const ideCommit = await ide.commit("IDE page during the burst");
  await ide.push();
  const head = await ide.head();
  const body = JSON.stringify({ ref: "refs/heads/main", before: "0".repeat(40), after: head, commits: [{ id: head, added: ["from-ide.md"], modified: [], removed: [] }] });
  const delivery = () =>
    new Client(server.url).request("POST", `/api/git/webhook/${ws.id}`, {
      body,
      headers: { "content-type": "application/json", "X-GitHub-Event": "push", "X-Hub-Signature-256": signGithub(body, secret) },
    });

  // Back-to-back saves, the delivery sent after the fifth: the pull's fetch, apply and merge run
  // while the rest keep coming. Nothing waits for git in between.
  let hook: ReturnType<typeof delivery> | null = null;
  for (let i = 0; i < SAVES; i++) {
    const r = await owner.client.post(`/api/v1/content/${ws.slug}/burst/save-${String(i).padStart(2, "0")}`, { title: `Save ${i}`, body: `Burst ${i}` });
    expect(r.status).toBe(201);
    if (i === 4) hook = delivery();
    if (i >= 4) await Bun.sleep(15); // the rest spread over the pull (its fetch alone takes ~100 ms)
  }
  expect((await hook!).status).toBe(202);

  await waitFor(async () => (await owner.client.get(`/api/v1/content/${ws.slug}/from-ide.md`)).status === 200, 5000, "the IDE page");
  await settled(server);
  // Both ends agree on one history holding everything.
  const local = (await git(["rev-parse", "HEAD"], { cwd: dir })).trim();
  expect(await remote.head()).toBe(local);
  const subjects = (await remote.log("main", 200)).map((c) => c.subject);
  for (let i = 0; i < SAVES; i++) {
    const subject = `Create burst/save-${String(i).padStart(2, "0")}.md via web editor`;
    expect(subjects.filter((s) => s === subject)).toHaveLength(1);
  }
  expect(subjects).toContain("IDE page during the burst");
  expect((await tryGit(["merge-base", "--is-ancestor", ideCommit, "HEAD"], { cwd: dir })).code).toBe(0);
  for (let i = 0; i < SAVES; i++) expect(await remote.show(`burst/save-${String(i).padStart(2, "0")}.md`)).toContain(`title: Save ${i}`);
  expect(await remote.show("from-ide.md")).toContain("Pushed while the browser was busy.");
  expect(server.services.ledger.records.liveIn(ws.id).filter((r) => r.path.startsWith("burst/"))).toHaveLength(SAVES);
  expect((await tryGit(["fsck", "--strict", "--no-dangling"], { cwd: dir })).code).toBe(0);
  expect(row(server, ws.id).sync_status).toBe("synced");
  // The developer sees every save after their next pull.
  await ide.pull();
  for (let i = 0; i < SAVES; i++) expect(ide.readFile(`burst/save-${String(i).padStart(2, "0")}.md`)).toContain(`Burst ${i}`);
}, 30_000);
