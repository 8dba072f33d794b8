/**
 * End to end with real git: a developer pushes from an IDE clone to a smart-HTTP remote on
 * loopback, the hosting provider calls the webhook, and the page is readable through the API
 * within a second, announced on the live stream. Pushes to other branches and forged calls
 * change nothing.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import { IdeClone, startGitHttpRemote, tryGit, type GitHttpRemote } from "../helpers/git-remote.ts";
import { connect, type WsClient } from "../realtime/ws-client.ts";
import { signGithub } from "../../src/git/webhook-signature.ts";
import { bitbucketPush, gitlabPush, pushHeaders } from "./webhook-payloads.ts";

let server: TestServer;
let remote: GitHttpRemote;
let ide: IdeClone;
let owner: TestUser;
let ws: { id: string; slug: string };
let secret: string;
let stream: WsClient;

beforeAll(async () => {
  remote = await startGitHttpRemote({ branch: "main" });
  server = await startTestServer({ GIT_ALLOWLIST_PRIVATE: "true" });
  owner = await registerUser(server.url);
  const created = await owner.client.post("/api/v1/workspaces", { name: "Docs", slug: "docs", git_remote: remote.url, git_branch: "main" });
  expect(created.status).toBe(201);
  ws = { id: created.body.id, slug: created.body.slug };
  secret = (await owner.client.get(`/api/v1/workspaces/${ws.id}/admin/settings`)).body.webhook_secret;
  ide = await IdeClone.clone(remote.url);
  stream = await connect(server, owner);
});
afterAll(async () => {
  stream?.close();
  await server?.close();
  await ide?.close();
  await remote?.close();
});

/** The GitHub delivery for the IDE clone's current head. */
async function githubDelivery(branch = "main", path = "x.md") {
  const head = await ide.head();
  const body = JSON.stringify({ ref: `refs/heads/${branch}`, before: "0".repeat(40), after: head, commits: [{ id: head, added: [path], modified: [], removed: [] }] });
  return { body, headers: { "content-type": "application/json", "X-GitHub-Event": "push", "X-Hub-Signature-256": signGithub(body, secret) } };
}

/**
 * A developer's round: pull what Quire pushed (ids it wrote into frontmatter, merges), edit,
 * commit, push (pulling again if Quire pushed in between).
 */
async function develop(edit: () => void, message: string, branch = "main"): Promise<void> {
  await quireSettled();
  await ide.pull();
  edit();
  await ide.commit(message, { name: "Dev Eloper", email: "dev@example.test" });
  await ide.pushWithPull(branch);
}

/**
 * Waits until Quire has pushed what it had to push: sync_status back to `synced` and the work
 * tree's HEAD (on disk) is the remote's head, twice in a row (a commit may follow a sync).
 */
async function quireSettled(limitMs = 5000): Promise<void> {
  const t0 = performance.now();
  const dir = server.services.ledger.dir(ws.id).root;
  let status = "";
  let stable = 0;
  while (performance.now() - t0 < limitMs) {
    status = (await owner.client.get(`/api/v1/workspaces/${ws.id}`)).body.sync_status;
    const local = (await tryGit(["rev-parse", "HEAD"], { cwd: dir })).stdout.trim();
    stable = status === "synced" && local === (await remote.head()) ? stable + 1 : 0;
    if (stable >= 2) return;
    await Bun.sleep(50);
  }
  throw new Error(`workspace sync_status still ${status} (or unpushed commits) after ${limitMs} ms`);
}

/** Replaces the last paragraph of a page, keeping its frontmatter as an editor would. */
function setLastParagraph(path: string, text: string): void {
  const current = ide.readFile(path)!;
  ide.writeFile(path, current.replace(/\n\n[^\n]*\n$/, `\n\n${text}\n`));
}

const hook = (body: string, headers: Record<string, string>) => new Client(server.url).request("POST", `/api/git/webhook/${ws.id}`, { body, headers });

/** Reads the page through the API until it shows `text`; returns the ms it took. */
async function readableWithin(path: string, text: string, limitMs: number): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const r = await owner.client.get(`/api/v1/content/${ws.slug}/${path}`);
    if (r.status === 200 && JSON.stringify(r.body).includes(text)) return performance.now() - t0;
    if (performance.now() - t0 > limitMs) throw new Error(`${path} not readable with "${text}" after ${limitMs} ms (last ${r.status})`);
    await Bun.sleep(20);
  }
}

test("the cloned workspace shows the remote's pages", async () => {
  const r = await owner.client.get(`/api/v1/content/${ws.slug}/index.md`);
  expect(r.status).toBe(200);
  expect(JSON.stringify(r.body)).toContain("Welcome to the remote");
});

test("IDE push → webhook → page readable through the API within 1 s, with a live event", async () => {
  await develop(() => ide.writeFile("guide/from-ide.md", "---\ntitle: From the IDE\n---\n\n# From the IDE\n\nPushed by a developer.\n"), "Add a page from the IDE");
  const from = stream.frames.length;
  const { body, headers } = await githubDelivery("main", "guide/from-ide.md");
  const t0 = performance.now();
  const res = await hook(body, headers);
  expect(res.status).toBe(202);
  expect(res.body).toMatchObject({ status: "accepted", branch: "main" });
  await readableWithin("guide/from-ide.md", "Pushed by a developer.", 1000);
  expect(performance.now() - t0).toBeLessThan(1000);
  const event = await stream.next((f) => f.type === "page-created" && f.payload.path === "guide/from-ide.md", 2000, from);
  expect(event.payload.workspace_id).toBe(ws.id);
});

test("an update pushed from the IDE replaces the page's text (GitLab and Bitbucket deliveries)", async () => {
  for (const [provider, text] of [["gitlab", "Edited via GitLab hook."], ["bitbucket", "Edited via Bitbucket hook."]] as const) {
    await develop(() => setLastParagraph("guide/from-ide.md", text), `Edit for ${provider}`);
    const from = stream.frames.length;
    const body = JSON.stringify(provider === "gitlab" ? gitlabPush("main", { after: await ide.head() }) : bitbucketPush("main", { hash: await ide.head() }));
    const res = await hook(body, pushHeaders(provider, body, secret));
    expect(res.status).toBe(202);
    await readableWithin("guide/from-ide.md", text, 1000);
    await stream.next((f) => f.type === "page-updated" && f.payload.path === "guide/from-ide.md", 2000, from);
  }
});

test("a push to another branch is acknowledged, ignored, and the page stays as it was", async () => {
  await develop(() => setLastParagraph("guide/from-ide.md", "Only on a feature branch."), "Feature-branch edit", "feature");
  const { body, headers } = await githubDelivery("feature");
  const res = await hook(body, headers);
  expect(res.status).toBe(200);
  expect(res.body.status).toBe("ignored");
  await Bun.sleep(300);
  const page = await owner.client.get(`/api/v1/content/${ws.slug}/guide/from-ide.md`);
  expect(JSON.stringify(page.body)).not.toContain("Only on a feature branch.");
  // Put the IDE back on main's history for the next test.
  await ide.git(["fetch", "--quiet", "origin"]);
  await ide.git(["reset", "--hard", "--quiet", "origin/main"]);
});

test("a forged webhook pulls nothing, even when the remote has moved on", async () => {
  await develop(() => ide.writeFile("secret-plan.md", "# Not yet announced\n"), "Add a page nobody announced");
  const { body } = await githubDelivery("main", "secret-plan.md");
  const forged = await hook(body, { "content-type": "application/json", "X-GitHub-Event": "push", "X-Hub-Signature-256": signGithub(body, "guessed") });
  expect(forged.status).toBe(401);
  const missing = await hook(body, { "content-type": "application/json", "X-GitHub-Event": "push" });
  expect(missing.status).toBe(401);
  await Bun.sleep(300);
  expect((await owner.client.get(`/api/v1/content/${ws.slug}/secret-plan.md`)).status).toBe(404);
  // The genuine delivery then brings it in.
  const { headers } = await githubDelivery("main", "secret-plan.md");
  expect((await hook(body, headers)).status).toBe(202);
  await readableWithin("secret-plan.md", "Not yet announced", 1000);
});

test("a deletion pushed from the IDE removes the page", async () => {
  await develop(() => ide.rm("secret-plan.md"), "Remove the page");
  const { body, headers } = await githubDelivery("main", "secret-plan.md");
  expect((await hook(body, headers)).status).toBe(202);
  const t0 = performance.now();
  while ((await owner.client.get(`/api/v1/content/${ws.slug}/secret-plan.md`)).status !== 404) {
    if (performance.now() - t0 > 1000) throw new Error("page still readable 1 s after the webhook");
    await Bun.sleep(20);
  }
});
