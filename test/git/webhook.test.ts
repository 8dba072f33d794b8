/**
 * Inbound git webhook over real HTTP: GitHub, GitLab and Bitbucket deliveries, verified against the
 * workspace's secret, with forged, missing and misplaced proofs refused before anything happens.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Client } from "../helpers/client.ts";
import { registerUser, type TestUser } from "../helpers/factories.ts";
import type { PushNotice } from "../../src/git/webhook-receiver.ts";
import { git, startGitHttpRemote, type GitHttpRemote } from "../helpers/git-remote.ts";
import { signBitbucket, signGithub } from "../../src/git/webhook-signature.ts";
import {
  GITHUB_BRANCH_PUSH,
  GITHUB_ISSUES,
  GITHUB_PING,
  GITHUB_PUSH_EXAMPLES,
  PROOF_HEADER,
  bitbucketPush,
  gitlabPush,
  pushBody,
  pushHeaders,
  type ProviderName,
} from "./webhook-payloads.ts";

let server: TestServer;
let remote: GitHttpRemote;
let owner: TestUser;
/** A workspace cloned from `remote` (branch main): the one the deliveries go to. */
let wsId: string;
let secret: string;
let branch: string;
const notices: PushNotice[] = [];

/** A workspace of the owner's organization that syncs with the test remote. */
async function gitWorkspace(slug: string, gitBranch = "main"): Promise<{ id: string; secret: string }> {
  const created = await owner.client.post("/api/v1/workspaces", { name: slug, slug, git_remote: remote.url, git_branch: gitBranch });
  expect(created.status).toBe(201);
  const settings = await owner.client.get(`/api/v1/workspaces/${created.body.id}/admin/settings`);
  expect(settings.status).toBe(200);
  return { id: created.body.id, secret: settings.body.webhook_secret };
}

beforeAll(async () => {
  remote = await startGitHttpRemote({ branch: "main" });
  // GitHub's published examples push to `master`.
  await git(["branch", "master", "main"], { cwd: remote.bareDir });
  server = await startTestServer({ GIT_ALLOWLIST_PRIVATE: "true" });
  owner = await registerUser(server.url);
  const ws = await gitWorkspace("hooks");
  wsId = ws.id;
  const settings = await owner.client.get(`/api/v1/workspaces/${wsId}/admin/settings`);
  secret = settings.body.webhook_secret;
  branch = settings.body.git_branch;
  expect(branch).toBe("main");
  expect(secret).toMatch(/^[0-9a-f]{64}$/);
  expect(settings.body.webhook_url).toBe(`${server.config.baseUrl}/api/git/webhook/${wsId}`);
  server.services.webhooks.onPush((n) => void notices.push(n));
});
afterAll(async () => {
  await server?.close();
  await remote?.close();
});

/** Each delivery comes from its own address, so the 30/min per-IP limit never interferes. */
function deliver(body: string | Uint8Array | undefined, headers: Record<string, string>, workspaceId = wsId) {
  return new Client(server.url).request("POST", `/api/git/webhook/${workspaceId}`, { body: body as RequestInit["body"], headers });
}

/** Pushes recorded since `from`, after letting detached handlers run. */
async function pushesSince(from: number): Promise<PushNotice[]> {
  await Bun.sleep(5);
  return notices.slice(from);
}

async function expectRefused(res: { status: number; body: any }, from: number) {
  expect(res.status).toBe(401);
  expect(res.body.error).toBe("UNAUTHORIZED");
  expect(res.body.request_id).toBeTruthy();
  expect(await pushesSince(from)).toEqual([]);
}

const PROVIDERS: ProviderName[] = ["github", "gitlab", "bitbucket"];

describe.each(PROVIDERS)("%s", (provider) => {
  test("a push to the configured branch is accepted and hands the push to the sync", async () => {
    const from = notices.length;
    const body = pushBody(provider, branch);
    const res = await deliver(body, pushHeaders(provider, body, secret));
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ status: "accepted", provider, branch });
    const got = await pushesSince(from);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ workspaceId: wsId, branch, provider });
    expect(got[0]!.deliveryId).toBeTruthy();
  });

  test("a push to another branch is acknowledged and ignored", async () => {
    const from = notices.length;
    const body = pushBody(provider, "feature/other");
    const res = await deliver(body, pushHeaders(provider, body, secret));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("ignored");
    expect(res.body.reason).toContain("feature/other");
    expect(await pushesSince(from)).toEqual([]);
  });

  test("a missing proof header is refused", async () => {
    const from = notices.length;
    const body = pushBody(provider, branch);
    const headers = pushHeaders(provider, body, secret);
    delete headers[PROOF_HEADER[provider]];
    await expectRefused(await deliver(body, headers), from);
    // An empty header value is no better.
    await expectRefused(await deliver(body, { ...headers, [PROOF_HEADER[provider]]: "" }), from);
  });

  test("a forged proof is refused", async () => {
    const from = notices.length;
    const body = pushBody(provider, branch);
    const forged = provider === "gitlab" ? "0".repeat(64) : `sha256=${"ab".repeat(32)}`;
    await expectRefused(await deliver(body, { ...pushHeaders(provider, body, secret), [PROOF_HEADER[provider]]: forged }), from);
    // Malformed values: no algorithm, unknown algorithm, not hex, the secret itself where a signature belongs.
    if (provider !== "gitlab") {
      const good = pushHeaders(provider, body, secret)[PROOF_HEADER[provider]]!;
      for (const bad of [good.slice("sha256=".length), `md5=${good.slice(7)}`, "sha256=zz" + good.slice(9), `sha256=${secret}`, good + "00", good.slice(0, -2)]) {
        await expectRefused(await deliver(body, { ...pushHeaders(provider, body, secret), [PROOF_HEADER[provider]]: bad }), from);
      }
    } else {
      for (const bad of [secret.slice(0, -1), secret + "0", ` ${secret}x`, secret.toUpperCase()]) {
        await expectRefused(await deliver(body, { ...pushHeaders(provider, body, secret), "X-Gitlab-Token": bad }), from);
      }
    }
  });

  test("a proof made with a wrong secret is refused", async () => {
    const from = notices.length;
    const body = pushBody(provider, branch);
    const wrong = "f".repeat(64);
    await expectRefused(await deliver(body, pushHeaders(provider, body, wrong)), from);
  });

  test("header names are case-insensitive", async () => {
    const from = notices.length;
    const body = pushBody(provider, branch);
    const headers = pushHeaders(provider, body, secret);
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    expect((await deliver(body, lower)).status).toBe(202);
    expect((await deliver(body, upper)).status).toBe(202);
    expect(await pushesSince(from)).toHaveLength(2);
  });

  test("a verified body that is not JSON, or is empty, is a 400 and starts nothing", async () => {
    const from = notices.length;
    for (const body of ["", "not json at all", "{\"ref\": ", "[1,2,3]", "\"refs/heads/main\""]) {
      const res = await deliver(body, pushHeaders(provider, body, secret));
      expect(res.status).toBe(400);
      expect(res.body.error).toBe("VALIDATION_ERROR");
    }
    // Bytes that are not UTF-8 at all.
    const bytes = new Uint8Array([0xff, 0xfe, 0x7b, 0x7d]);
    const res = await deliver(bytes, pushHeaders(provider, bytes, secret));
    expect(res.status).toBe(400);
    expect(await pushesSince(from)).toEqual([]);
  });

  test("an empty body without a proof is refused as unauthenticated, not parsed", async () => {
    const from = notices.length;
    const headers = pushHeaders(provider, "", secret);
    delete headers[PROOF_HEADER[provider]];
    await expectRefused(await deliver("", headers), from);
  });

  test("an unknown workspace is 401 whatever the proof, like a bad signature (existence is not revealed)", async () => {
    const from = notices.length;
    const body = pushBody(provider, branch);
    for (const id of ["01JZZZZZZZZZZZZZZZZZZZZZZZ", "not-a-workspace", "hooks"]) {
      const res = await deliver(body, pushHeaders(provider, body, secret), id);
      expect(res.status).toBe(401);
      expect(res.body.error).toBe("UNAUTHORIZED");
    }
    expect(await pushesSince(from)).toEqual([]);
  });
});

describe("signatures are over the raw bytes", () => {
  test("a proof over a different body is refused (GitHub, Bitbucket)", async () => {
    const from = notices.length;
    const signed = pushBody("github", branch);
    const sent = pushBody("github", branch).replace('"ref":', '"ref" :');
    await expectRefused(await deliver(sent, { ...pushHeaders("github", sent, secret), "X-Hub-Signature-256": signGithub(signed, secret) }), from);
    const bSigned = pushBody("bitbucket", branch);
    const bSent = JSON.stringify(bitbucketPush(branch, { hash: "0".repeat(40) }));
    await expectRefused(await deliver(bSent, { ...pushHeaders("bitbucket", bSent, secret), "X-Hub-Signature": signBitbucket(bSigned, secret) }), from);
    // The same JSON value re-serialised differently is a different body too.
    const pretty = JSON.stringify(JSON.parse(signed), null, 2);
    await expectRefused(await deliver(pretty, { ...pushHeaders("github", pretty, secret), "X-Hub-Signature-256": signGithub(signed, secret) }), from);
  });

  test("bytes that re-serialise differently (spacing, escapes, key order) verify as sent", async () => {
    const from = notices.length;
    const body = `{ "after" : "abc" ,\n  "note": "caf\\u00e9 \\/ \u00fc",  "ref":"refs/heads/${branch}" }\r\n`;
    expect(JSON.stringify(JSON.parse(body))).not.toBe(body);
    const res = await deliver(body, pushHeaders("github", body, secret));
    expect(res.status).toBe(202);
    expect(await pushesSince(from)).toHaveLength(1);
  });

  test("a chunked body (no Content-Length) verifies the same", async () => {
    const from = notices.length;
    const body = new TextEncoder().encode(JSON.stringify(GITHUB_BRANCH_PUSH, null, 2).replace("refs/heads/master", `refs/heads/${branch}`));
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < body.length; i += 1000) c.enqueue(body.slice(i, i + 1000));
        c.close();
      },
    });
    const res = await fetch(`${server.url}/api/git/webhook/${wsId}`, {
      method: "POST",
      headers: { ...pushHeaders("github", body, secret), "x-forwarded-for": new Client(server.url).ip },
      body: stream,
    });
    expect(res.status).toBe(202);
    expect(await pushesSince(from)).toHaveLength(1);
  });

  test("GitHub's form encoding (payload=...) is verified over the form bytes", async () => {
    const from = notices.length;
    const form = "payload=" + encodeURIComponent(pushBody("github", branch));
    const res = await deliver(form, { ...pushHeaders("github", form, secret), "content-type": "application/x-www-form-urlencoded" });
    expect(res.status).toBe(202);
    const noField = "other=1";
    const bad = await deliver(noField, { ...pushHeaders("github", noField, secret), "content-type": "application/x-www-form-urlencoded" });
    expect(bad.status).toBe(400);
    expect(await pushesSince(from)).toHaveLength(1);
  });

  test("Bitbucket's sha1= form is accepted as well as sha256=", async () => {
    const from = notices.length;
    const body = pushBody("bitbucket", branch);
    const sha1 = signBitbucket(body, secret, "sha1");
    expect(sha1).toMatch(/^sha1=[0-9a-f]{40}$/);
    const res = await deliver(body, { ...pushHeaders("bitbucket", body, secret), "X-Hub-Signature": sha1 });
    expect(res.status).toBe(202);
    // A sha1 signature over another body, or with the wrong secret, still fails.
    await expectRefused(await deliver(body, { ...pushHeaders("bitbucket", body, secret), "X-Hub-Signature": signBitbucket(body + " ", secret, "sha1") }), from + 1);
    await expectRefused(await deliver(body, { ...pushHeaders("bitbucket", body, secret), "X-Hub-Signature": signBitbucket(body, "nope", "sha1") }), from + 1);
    // GitHub's header accepts sha256 only.
    await expectRefused(await deliver(body, { ...pushHeaders("github", body, secret), "X-Hub-Signature-256": signBitbucket(body, secret, "sha1") }), from + 1);
  });

  test("GitHub's legacy sha1 header next to a wrong sha256 one does not get in", async () => {
    const from = notices.length;
    const body = pushBody("github", branch);
    const headers = { ...pushHeaders("github", body, secret), "X-Hub-Signature-256": signGithub(body, "wrong"), "X-Hub-Signature": signBitbucket(body, secret, "sha1") };
    await expectRefused(await deliver(body, headers), from);
  });

  test("an uppercase hex signature is the same signature", async () => {
    const body = pushBody("github", branch);
    const sig = signGithub(body, secret);
    const res = await deliver(body, { ...pushHeaders("github", body, secret), "X-Hub-Signature-256": "sha256=" + sig.slice(7).toUpperCase() });
    expect(res.status).toBe(202);
  });
});

describe("events", () => {
  test("GitHub ping is answered 200 and starts nothing", async () => {
    const from = notices.length;
    const body = JSON.stringify(GITHUB_PING);
    const res = await deliver(body, { ...pushHeaders("github", body, secret), "X-GitHub-Event": "ping" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "pong", provider: "github" });
    // A ping with a bad signature is still refused.
    await expectRefused(await deliver(body, { ...pushHeaders("github", body, "wrong"), "X-GitHub-Event": "ping" }), from);
    expect(await pushesSince(from)).toEqual([]);
  });

  test("Bitbucket's connection test (diagnostics:ping) is answered 200", async () => {
    const body = JSON.stringify({ test: true });
    const res = await deliver(body, { ...pushHeaders("bitbucket", body, secret), "X-Event-Key": "diagnostics:ping" });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe("pong");
  });

  test("other events are acknowledged and ignored", async () => {
    const from = notices.length;
    const issues = JSON.stringify(GITHUB_ISSUES);
    const gh = await deliver(issues, { ...pushHeaders("github", issues, secret), "X-GitHub-Event": "issues" });
    expect(gh.status).toBe(200);
    expect(gh.body.status).toBe("ignored");
    const tag = JSON.stringify({ ...gitlabPush(branch), object_kind: "tag_push", ref: "refs/tags/v1.0" });
    const gl = await deliver(tag, { ...pushHeaders("gitlab", tag, secret), "X-Gitlab-Event": "Tag Push Hook" });
    expect(gl.status).toBe(200);
    expect(gl.body.status).toBe("ignored");
    const pr = JSON.stringify({ pullrequest: { id: 1 } });
    const bb = await deliver(pr, { ...pushHeaders("bitbucket", pr, secret), "X-Event-Key": "pullrequest:created" });
    expect(bb.status).toBe(200);
    expect(bb.body.status).toBe("ignored");
    expect(await pushesSince(from)).toEqual([]);
  });

  test("a push payload without the event header is read by its shape; a shapeless one is a 400", async () => {
    const from = notices.length;
    for (const provider of PROVIDERS) {
      const body = pushBody(provider, branch);
      const headers = pushHeaders(provider, body, secret);
      for (const h of ["X-GitHub-Event", "X-Gitlab-Event", "X-Event-Key"]) delete headers[h];
      expect((await deliver(body, headers)).status).toBe(202);
    }
    const shapeless = JSON.stringify({ hello: "world" });
    const res = await deliver(shapeless, { "content-type": "application/json", "X-Hub-Signature-256": signGithub(shapeless, secret) });
    expect(res.status).toBe(400);
    expect(res.body.details.field).toBe("ref");
    expect(await pushesSince(from)).toHaveLength(3);
  });

  test("a push that deletes the configured branch is ignored (GitLab zero sha, Bitbucket new: null, GitHub deleted)", async () => {
    const from = notices.length;
    const gl = JSON.stringify(gitlabPush(branch, { after: "0".repeat(40) }));
    const bb = JSON.stringify(bitbucketPush(branch, { deleted: true }));
    const gh = JSON.stringify({ ...GITHUB_BRANCH_PUSH, ref: `refs/heads/${branch}`, deleted: true, after: "0".repeat(40) });
    for (const [p, body] of [["gitlab", gl], ["bitbucket", bb], ["github", gh]] as const) {
      const res = await deliver(body, pushHeaders(p, body, secret));
      expect(res.status).toBe(200);
      expect(res.body.status).toBe("ignored");
    }
    expect(await pushesSince(from)).toEqual([]);
  });

  test("a Bitbucket push moving several branches is accepted when one is the configured branch", async () => {
    const from = notices.length;
    const payload = bitbucketPush("feature");
    payload.push.changes.push(bitbucketPush(branch).push.changes[0]);
    const body = JSON.stringify(payload);
    const res = await deliver(body, pushHeaders("bitbucket", body, secret));
    expect(res.status).toBe(202);
    expect(await pushesSince(from)).toHaveLength(1);
  });
});

test("GitHub's published push examples: branch pushes to the configured branch accepted, tag pushes ignored", async () => {
  // The examples push to `master`: a workspace that syncs that branch.
  const ws = await gitWorkspace("examples", "master");
  expect(GITHUB_PUSH_EXAMPLES.length).toBeGreaterThanOrEqual(5);
  let accepted = 0;
  for (const example of GITHUB_PUSH_EXAMPLES) {
    // Sent the way GitHub does: pretty-printed JSON bytes.
    const body = JSON.stringify(example, null, 2);
    const res = await deliver(body, pushHeaders("github", body, ws.secret), ws.id);
    if (String(example.ref).startsWith("refs/heads/master")) {
      expect(res.status).toBe(202);
      accepted++;
    } else {
      expect(res.status).toBe(200);
      expect(res.body.status).toBe("ignored");
    }
  }
  expect(accepted).toBeGreaterThan(0);
});

test("after the secret is regenerated the old one fails and the new one works", async () => {
  const ws = { workspaceId: (await gitWorkspace("regen")).id };
  const old = (await owner.client.get(`/api/v1/workspaces/${ws.workspaceId}/admin/settings`)).body;
  const regen = await owner.client.post(`/api/v1/workspaces/${ws.workspaceId}/admin/settings/webhook-secret/regenerate`, {});
  expect(regen.status).toBe(200);
  const fresh = regen.body.webhook_secret;
  expect(fresh).toMatch(/^[0-9a-f]{64}$/);
  expect(fresh).not.toBe(old.webhook_secret);
  const from = notices.length;
  for (const provider of PROVIDERS) {
    const body = pushBody(provider, old.git_branch);
    await expectRefused(await deliver(body, pushHeaders(provider, body, old.webhook_secret), ws.workspaceId), notices.length);
    expect((await deliver(body, pushHeaders(provider, body, fresh), ws.workspaceId)).status).toBe(202);
  }
  expect((await pushesSince(from)).map((n) => n.provider)).toEqual(PROVIDERS);
});

test("one workspace's secret does not open another's webhook", async () => {
  const other = await registerUser(server.url);
  const from = notices.length;
  for (const provider of PROVIDERS) {
    const body = pushBody(provider, branch);
    await expectRefused(await deliver(body, pushHeaders(provider, body, secret), other.workspaceId), from);
  }
});

test("a deleted workspace's webhook is 401, like a bad signature", async () => {
  const { id, secret: s } = await gitWorkspace("doomed");
  const body = pushBody("github", "main");
  expect((await deliver(body, pushHeaders("github", body, s), id)).status).toBe(202);
  expect((await owner.client.delete(`/api/v1/workspaces/${id}`)).status).toBeLessThan(300);
  expect((await deliver(body, pushHeaders("github", body, s), id)).status).toBe(401);
});

test("a verified push to a workspace without a remote is acknowledged and ignored", async () => {
  // The starter workspace of a new account keeps local history only.
  const u = await registerUser(server.url);
  const s = (await u.client.get(`/api/v1/workspaces/${u.workspaceId}/admin/settings`)).body;
  expect(s.git_remote).toBeNull();
  const from = notices.length;
  const body = pushBody("github", s.git_branch);
  const res = await deliver(body, pushHeaders("github", body, s.webhook_secret), u.workspaceId);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ status: "ignored", reason: "the workspace has no git remote" });
  expect(await pushesSince(from)).toEqual([]);
  // Its webhook still checks the signature first.
  await expectRefused(await deliver(body, pushHeaders("github", body, "wrong"), u.workspaceId), from);
});

test("the route is public: a user's bearer token is neither needed nor enough", async () => {
  const body = pushBody("github", branch);
  const headers = pushHeaders("github", body, secret);
  delete headers["X-Hub-Signature-256"];
  const res = await new Client(server.url).request("POST", `/api/git/webhook/${wsId}`, { body, headers, token: owner.accessToken });
  expect(res.status).toBe(401);
  // Other methods are not routes.
  const get = await new Client(server.url).request("GET", `/api/git/webhook/${wsId}`);
  expect(get.status).toBe(404);
});

test("the secret never reaches the request log", async () => {
  const body = pushBody("gitlab", branch);
  await deliver(body, pushHeaders("gitlab", body, secret));
  await Bun.sleep(5);
  expect(server.logs.join("\n")).not.toContain(secret);
});
