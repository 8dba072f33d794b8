/**
 * The git test remotes themselves: clone, push and fetch over smart HTTP (with and without
 * basic auth) and over a local path, using the real git command and isomorphic-git.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as isogit from "isomorphic-git";
import http from "isomorphic-git/http/node";
import * as fs from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IdeClone, createLocalBareRemote, startGitHttpRemote, tryGit, type GitHttpRemote } from "../helpers/git-remote.ts";

describe("smart HTTP remote", () => {
  let remote: GitHttpRemote;
  beforeAll(async () => {
    remote = await startGitHttpRemote({ branch: "main" });
  });
  afterAll(() => remote.close());

  test("binds loopback and serves the initial commit on the branch", async () => {
    expect(remote.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/remote\.git$/);
    expect(await remote.show("index.md")).toContain("# Home");
    expect(await remote.show("guide/getting-started.md")).toContain("Getting started");
    expect((await remote.log()).map((c) => c.subject)).toEqual(["Initial commit"]);
  });

  test("two IDE clones: push from one, pull into the other", async () => {
    const a = await IdeClone.clone(remote.url);
    const b = await IdeClone.clone(remote.url);
    try {
      expect(a.readFile("index.md")).toContain("Welcome");
      a.writeFile("notes/new.md", "# New\n");
      a.rm("guide/getting-started.md");
      a.mv("index.md", "home.md");
      const sha = await a.commit("Add, remove and rename", { name: "Ada", email: "ada@example.test" });
      await a.push();
      expect(await remote.head()).toBe(sha);
      expect(await remote.show("notes/new.md")).toBe("# New\n");
      expect(await remote.show("guide/getting-started.md")).toBeNull();
      const [top] = await remote.log();
      expect(top).toMatchObject({ sha, subject: "Add, remove and rename", author_name: "Ada", author_email: "ada@example.test" });

      await b.pull();
      expect(await b.head()).toBe(sha);
      expect(b.readFile("home.md")).toContain("Welcome");
      expect(b.readFile("index.md")).toBeNull();

      // A push from a clone that is behind is refused (never forced).
      b.writeFile("b.md", "b\n");
      await b.commit("b");
      a.writeFile("a.md", "a\n");
      await a.commit("a");
      await a.push();
      const refused = await b.tryPush();
      expect(refused.code).not.toBe(0);
      expect(await remote.show("b.md")).toBeNull();
      expect(remote.requests.some((r) => r.startsWith("POST /remote.git/git-receive-pack 200"))).toBe(true);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test("a push to another branch creates that branch only", async () => {
    const ide = await IdeClone.clone(remote.url);
    try {
      const before = await remote.head("main");
      ide.writeFile("feature.md", "# Feature\n");
      const sha = await ide.commit("Feature work");
      await ide.push("feature");
      expect(await remote.head("feature")).toBe(sha);
      expect(await remote.head("main")).toBe(before);
    } finally {
      await ide.close();
    }
  });

  test("isomorphic-git clones, fetches and pushes over it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "quire-isogit-"));
    const ide = await IdeClone.clone(remote.url);
    try {
      await isogit.clone({ fs, http, dir, url: remote.url, ref: "main", singleBranch: true });
      expect(fs.readFileSync(join(dir, "notes/new.md"), "utf8")).toBe("# New\n");

      ide.writeFile("from-ide.md", "# From IDE\n");
      const sha = await ide.commit("From the IDE");
      await ide.push();
      const fetched = await isogit.fetch({ fs, http, dir, url: remote.url, ref: "main", singleBranch: true });
      expect(fetched.fetchHead).toBe(sha);

      await isogit.merge({ fs, dir, ours: "main", theirs: "remotes/origin/main", fastForwardOnly: true });
      await isogit.checkout({ fs, dir, ref: "main" });
      fs.writeFileSync(join(dir, "from-web.md"), "# From web\n");
      await isogit.add({ fs, dir, filepath: "from-web.md" });
      const webSha = await isogit.commit({ fs, dir, message: "Create from-web.md via web editor", author: { name: "Web User", email: "web@example.test" } });
      const pushed = await isogit.push({ fs, http, dir, url: remote.url, ref: "main" });
      expect(pushed.ok).toBe(true);
      expect(await remote.head()).toBe(webSha);
      const [top] = await remote.log();
      expect(top).toMatchObject({ author_name: "Web User", subject: "Create from-web.md via web editor" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await ide.close();
    }
  });
});

describe("smart HTTP remote with basic auth", () => {
  let remote: GitHttpRemote;
  beforeAll(async () => {
    remote = await startGitHttpRemote({ branch: "trunk", auth: { username: "bot", token: "s3cret-token" } });
  });
  afterAll(() => remote.close());

  test("refuses clones without or with wrong credentials", async () => {
    const dir = mkdtempSync(join(tmpdir(), "quire-noauth-"));
    try {
      const anon = await tryGit(["clone", "--quiet", remote.url, join(dir, "a")]);
      expect(anon.code).not.toBe(0);
      const wrong = await tryGit(["clone", "--quiet", remote.url.replace("http://", "http://bot:nope@"), join(dir, "b")]);
      expect(wrong.code).not.toBe(0);
      expect(remote.requests.some((r) => r.endsWith(" 401"))).toBe(true);
      await expect(isogit.clone({ fs, http, dir: join(dir, "c"), url: remote.url })).rejects.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("accepts the right credentials (git CLI via URL, isomorphic-git via onAuth)", async () => {
    const ide = await IdeClone.clone(remote.authUrl, { branch: "trunk" });
    const dir = mkdtempSync(join(tmpdir(), "quire-auth-"));
    try {
      ide.writeFile("pushed.md", "# Pushed\n");
      const sha = await ide.commit("Push with a token");
      await ide.push();
      expect(await remote.head("trunk")).toBe(sha);
      await isogit.clone({ fs, http, dir, url: remote.url, ref: "trunk", onAuth: () => ({ username: "bot", password: "s3cret-token" }) });
      expect(fs.readFileSync(join(dir, "pushed.md"), "utf8")).toBe("# Pushed\n");
    } finally {
      await ide.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

test("local-path bare remote: clone and push with the git command", async () => {
  const remote = await createLocalBareRemote({ branch: "main", files: { "a.md": "# A\n" } });
  const ide = await IdeClone.clone(remote.url);
  try {
    expect(ide.readFile("a.md")).toBe("# A\n");
    ide.writeFile("b.md", "# B\n");
    const sha = await ide.commit("Add b");
    await ide.push();
    expect(await remote.head()).toBe(sha);
    expect(await remote.show("b.md")).toBe("# B\n");
  } finally {
    await ide.close();
    await remote.close();
  }
});

test("an empty remote has no branch yet and accepts a first push", async () => {
  const remote = await startGitHttpRemote({ branch: "main", files: {} });
  try {
    expect(await remote.head()).toBeNull();
    const ide = await IdeClone.clone(remote.url);
    try {
      ide.writeFile("first.md", "# First\n");
      const sha = await ide.commit("First");
      await ide.push();
      expect(await remote.head()).toBe(sha);
    } finally {
      await ide.close();
    }
  } finally {
    await remote.close();
  }
});
