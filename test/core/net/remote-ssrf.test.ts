/**
 * Git remotes cannot reach the server's own network (GIT_ALLOWLIST_PRIVATE off): every spelling of
 * a private address, names that resolve to one, redirects that lead to one, and a remote whose
 * address turns private after it was saved (DNS rebinding) are refused, and nothing is cloned.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../../helpers/server.ts";
import { registerUser, type TestUser } from "../../helpers/factories.ts";
import { startGitHttpRemote, type GitHttpRemote } from "../../helpers/git-remote.ts";
import { isPrivateAddress } from "../../../src/git/remote-url.ts";
import { RemoteNetwork } from "../../../src/core/net/remote-network.ts";
import { GIT_ENV, createFromRemote, row, settled } from "../../git/support.ts";

let remote: GitHttpRemote;
beforeAll(async () => {
  remote = await startGitHttpRemote({ branch: "main" });
});
afterAll(() => remote.close());

const slugOf = () => `p-${Math.random().toString(36).slice(2, 10)}`;
const workspaceCount = (s: TestServer) => s.services.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM workspaces").get()!.n;
const workspaceDirs = (s: TestServer) => {
  const dir = join(s.dataDir, "workspaces");
  return existsSync(dir) ? readdirSync(dir).length : 0;
};

/** A name from /etc/hosts that points at loopback (other than "localhost", which is refused by name). */
function loopbackHostName(): string | null {
  for (const line of readFileSync("/etc/hosts", "utf8").split("\n")) {
    const [address, ...names] = line.replace(/#.*/, "").trim().split(/\s+/);
    if (!address || !/^127\.|^::1$/.test(address)) continue;
    const name = names.find((n) => n && n !== "localhost" && !n.endsWith(".localhost") && /^[a-z0-9.-]+$/i.test(n));
    if (name) return name;
  }
  return null;
}

describe("with GIT_ALLOWLIST_PRIVATE off", () => {
  let strict: TestServer;
  let user: TestUser;
  beforeAll(async () => {
    strict = await startTestServer();
    user = await registerUser(strict.url);
  });
  afterAll(() => strict.close());

  async function expectRefused(urls: string[]) {
    const before = { workspaces: workspaceCount(strict), dirs: workspaceDirs(strict), requests: remote.requests.length };
    for (const url of urls) {
      const r = await createFromRemote(user, slugOf(), url);
      expect({ url, status: r.status, error: r.body.error, field: r.body.details?.field, reason: r.body.details?.reason }).toEqual({
        url,
        status: 400,
        error: "VALIDATION_ERROR",
        field: "git_remote",
        reason: "private_network",
      });
    }
    // Nothing created, nothing cloned, the loopback remote never contacted.
    expect({ workspaces: workspaceCount(strict), dirs: workspaceDirs(strict), requests: remote.requests.length }).toEqual(before);
  }

  test("IPv6 forms that lead to a private IPv4 address are refused (mapped, compatible, SIIT, NAT64, 6to4)", async () => {
    const port = new URL(remote.url).port;
    await expectRefused([
      `http://[::ffff:127.0.0.1]:${port}/remote.git`,
      `http://[0:0:0:0:0:ffff:7f00:1]:${port}/remote.git`,
      `http://[::ffff:a9fe:a9fe]/latest/meta-data.git`,
      `https://[::ffff:10.0.0.1]/x.git`,
      `http://[::127.0.0.1]:${port}/remote.git`,
      `http://[::ffff:0:127.0.0.1]:${port}/remote.git`,
      `http://[64:ff9b::7f00:1]:${port}/remote.git`,
      `http://[64:ff9b::169.254.169.254]/x.git`,
      `http://[2002:7f00:1::1]:${port}/remote.git`,
      `http://[2002:c0a8:101::1]/x.git`,
      `ssh://git@[::ffff:127.0.0.1]/x.git`,
    ]);
  });

  test("IPv6 loopback, unspecified, unique-local, link-local, site-local, multicast and non-global ranges are refused", async () => {
    const port = new URL(remote.url).port;
    await expectRefused([
      `http://[::1]:${port}/remote.git`,
      `http://[::]:${port}/remote.git`,
      `http://[fc00::1]/x.git`,
      `http://[fd12:3456::1]/x.git`,
      `http://[fe80::1]/x.git`,
      `http://[fec0::1]/x.git`,
      `http://[ff02::1]/x.git`,
      `http://[64:ff9b:1::1]/x.git`,
      `http://[100::1]/x.git`,
      `http://[2001:db8::1]/x.git`,
      `http://[2001::1]/x.git`,
      `git@[::1]:x.git`,
    ]);
  });

  test("IPv4 private, shared, special and reserved ranges are refused", async () => {
    const port = new URL(remote.url).port;
    await expectRefused([
      `http://0.0.0.0:${port}/remote.git`,
      `http://0.1.2.3/x.git`,
      `http://10.0.0.1/x.git`,
      `http://100.64.0.1/x.git`,
      `http://100.127.255.254/x.git`,
      `http://127.0.0.1:${port}/remote.git`,
      `http://127.255.255.254:${port}/remote.git`,
      `http://169.254.169.254/x.git`,
      `http://172.16.0.1/x.git`,
      `http://172.31.255.255/x.git`,
      `http://192.0.0.8/x.git`,
      `http://192.168.1.1/x.git`,
      `http://198.18.0.1/x.git`,
      `http://198.19.255.255/x.git`,
      `http://224.0.0.1/x.git`,
      `http://240.0.0.1/x.git`,
      `http://255.255.255.255/x.git`,
      `ssh://git@10.1.2.3/x.git`,
      `git@192.168.0.10:team/x.git`,
    ]);
  });

  test("decimal, octal, hex and short spellings of loopback (which the URL parser turns into 127.0.0.1) are refused", async () => {
    const port = new URL(remote.url).port;
    await expectRefused([
      `http://2130706433:${port}/remote.git`,
      `http://0x7f.0.0.1:${port}/remote.git`,
      `http://0x7f000001:${port}/remote.git`,
      `http://0177.0.0.1:${port}/remote.git`,
      `http://017700000001:${port}/remote.git`,
      `http://127.1:${port}/remote.git`,
      `http://%31%32%37.0.0.1:${port}/remote.git`,
      `http://127.0.0.1.:${port}/remote.git`,
    ]);
  });

  test("host names that resolve to loopback are refused (localhost, and a name from /etc/hosts)", async () => {
    const port = new URL(remote.url).port;
    const name = loopbackHostName();
    await expectRefused([
      `http://localhost:${port}/remote.git`,
      `http://LOCALHOST.:${port}/remote.git`,
      `http://git.localhost:${port}/remote.git`,
      ...(name ? [`http://${name}:${port}/remote.git`, `ssh://git@${name}/x.git`, `git@${name}:x.git`] : []),
    ]);
  });

  test("addresses are classified by what they reach: public ones stay public", () => {
    for (const a of ["8.8.8.8", "140.82.112.3", "172.32.0.1", "100.128.0.1", "192.0.1.1", "198.20.0.1", "223.255.255.254", "2606:4700::1111", "2a00:1450:4001::200e", "::ffff:8.8.8.8", "64:ff9b::8.8.8.8", "2002:808:808::1"]) {
      expect({ a, private: isPrivateAddress(a) }).toEqual({ a, private: false });
    }
    for (const a of ["::ffff:7f00:1", "::7f00:1", "64:ff9b::7f00:1", "2002:a00:1::", "::ffff:a9fe:a9fe", "fe80::1%eth0", "not-an-address", ""]) {
      expect({ a, private: isPrivateAddress(a) }).toEqual({ a, private: true });
    }
  });
});

/**
 * Redirects and rebinding need a "public" server, and every server a test can run is on loopback.
 * So the server under test allows private remotes for its early checks and its transport gets a
 * strict RemoteNetwork whose classification calls exactly one loopback address public: the first
 * hop (or the saved remote) is allowed, and the real rules judge everything else.
 */
describe("checks at every connection (strict transport, one loopback address deemed public)", () => {
  let server: TestServer;
  let user: TestUser;
  beforeAll(async () => {
    server = await startTestServer(GIT_ENV);
    user = await registerUser(server.url);
  });
  afterAll(() => server.close());

  const deemPublic = (address: string) => new RemoteNetwork(false, (a) => a !== address && isPrivateAddress(a));

  /** A server on [::1] that answers every request with a redirect to the same path on `target`. */
  function startRedirector(target: string, status = 302) {
    return Bun.serve({
      hostname: "::1",
      port: 0,
      fetch(req) {
        const u = new URL(req.url);
        return new Response(null, { status, headers: { location: `${target}${u.pathname.replace(/^\/remote\.git/, "")}${u.search}` } });
      },
    });
  }

  test("a remote that redirects to a private address is refused; nothing is cloned (allowed, the same redirect clones)", async () => {
    const redirector = startRedirector(remote.url);
    try {
      server.services.gitSync.transport.network = deemPublic("::1");
      const before = { workspaces: workspaceCount(server), requests: remote.requests.length };
      const r = await createFromRemote(user, slugOf(), `http://[::1]:${redirector.port}/remote.git`);
      expect(r.status).toBe(400);
      expect(r.body.details).toMatchObject({ field: "git_remote", reason: "private_network" });
      expect({ workspaces: workspaceCount(server), requests: remote.requests.length }).toEqual(before);

      // Control: the same redirect is followed when its target is allowed (the redirect works; the check is what refused it).
      server.services.gitSync.transport.network = new RemoteNetwork(true);
      const ok = await createFromRemote(user, slugOf(), `http://[::1]:${redirector.port}/remote.git`);
      expect(ok.status).toBe(201);
      expect(remote.requests.length).toBeGreaterThan(before.requests);
      const page = await user.client.get(`/api/v1/content/${ok.body.slug}/guide/getting-started.md`);
      expect(page.status).toBe(200);
      await settled(server);
    } finally {
      server.services.gitSync.transport.network = new RemoteNetwork(true);
      redirector.stop(true);
    }
  });

  test("a redirect to a name that resolves to loopback is refused as well", async () => {
    const port = new URL(remote.url).port;
    const redirector = startRedirector(`http://localhost:${port}/remote.git`, 301);
    try {
      server.services.gitSync.transport.network = deemPublic("::1");
      const before = remote.requests.length;
      const r = await createFromRemote(user, slugOf(), `http://[::1]:${redirector.port}/remote.git`);
      expect(r.status).toBe(400);
      expect(r.body.details?.reason).toBe("private_network");
      expect(remote.requests.length).toBe(before);
    } finally {
      server.services.gitSync.transport.network = new RemoteNetwork(true);
      redirector.stop(true);
    }
  });

  test("a saved remote whose address is no longer allowed is refused at the next fetch and push (rebinding)", async () => {
    // Saved while 127.0.0.1 counted as public…
    server.services.gitSync.transport.network = deemPublic("127.0.0.1");
    try {
      const r = await createFromRemote(user, slugOf(), remote.url);
      expect(r.status).toBe(201);
      await settled(server);
      // …then the same remote resolves somewhere private (a DNS answer can change between checks).
      server.services.gitSync.transport.network = new RemoteNetwork(false);
      const before = remote.requests.length;
      const sync = await user.client.post(`/api/v1/workspaces/${r.body.id}/sync`, {});
      expect(sync.status).toBe(200);
      expect(sync.body).toMatchObject({ status: "failed" });
      expect(sync.body.error).toContain("private");
      expect(row(server, r.body.id).sync_status).toBe("error");

      // An edit's push is refused too.
      const page = await user.client.get(`/api/v1/content/${r.body.slug}/index.md`);
      const put = await user.client.put(`/api/v1/content/${r.body.slug}/index.md`, { body: "# Home\n\nlocal edit\n", lastKnownHash: page.body.content_hash });
      expect(put.status).toBe(200);
      await settled(server);
      expect(remote.requests.length).toBe(before);
      expect(await remote.show("index.md")).not.toContain("local edit");
    } finally {
      server.services.gitSync.transport.network = new RemoteNetwork(true);
    }
  });
});
