/**
 * Real git remotes for tests: a bare repository served over smart HTTP by `git http-backend`
 * behind a small CGI bridge, a bare repository on a local path (for the native-git/SSH-like
 * path), and `IdeClone`, an independent clone driven by the real `git` command that plays the
 * developer pushing from an IDE.
 *
 * Every git process is spawned asynchronously: a synchronous spawn of a git client against a
 * server living in this same process would block the event loop that has to answer it.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, readFileSync, existsSync, renameSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

/** Environment for every git process: no user or system config, no prompts, fixed identity. */
export function gitEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("GIT_")) env[k] = v;
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "/bin/false",
    SSH_ASKPASS: "/bin/false",
    GIT_AUTHOR_NAME: "IDE Developer",
    GIT_AUTHOR_EMAIL: "ide@example.test",
    GIT_COMMITTER_NAME: "IDE Developer",
    GIT_COMMITTER_EMAIL: "ide@example.test",
    ...extra,
  };
}

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `git <args>` asynchronously; never throws on a non-zero exit (see `git()` for that). */
export async function tryGit(args: string[], opts: { cwd?: string; env?: Record<string, string>; stdin?: string } = {}): Promise<GitResult> {
  const proc = Bun.spawn(["git", ...args], {
    cwd: opts.cwd,
    env: gitEnv(opts.env),
    stdin: opts.stdin !== undefined ? new TextEncoder().encode(opts.stdin) : "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

/** Runs `git <args>` asynchronously and throws with git's stderr when it fails. */
export async function git(args: string[], opts: { cwd?: string; env?: Record<string, string>; stdin?: string } = {}): Promise<string> {
  const r = await tryGit(args, opts);
  if (r.code !== 0) throw new Error(`git ${args.join(" ")} failed (${r.code}): ${(r.stderr + r.stdout).trim()}`);
  return r.stdout;
}

/** The files an initial commit holds unless a test gives its own. */
export const DEFAULT_FILES: Record<string, string> = {
  "index.md": "---\ntitle: Home\n---\n\n# Home\n\nWelcome to the remote.\n",
  "guide/getting-started.md": "---\ntitle: Getting started\n---\n\n# Getting started\n\nFirst steps.\n",
};

export interface BareRepoOptions {
  /** Branch of the initial commit (default `main`). */
  branch?: string;
  /** Files of the initial commit, path → content (default DEFAULT_FILES); `{}` leaves the repository empty. */
  files?: Record<string, string>;
}

/**
 * Creates `<root>/<name>.git` as a bare repository that accepts pushes, with one initial commit
 * on `branch` made through a scratch clone.
 */
async function createBareRepo(root: string, name: string, opts: BareRepoOptions): Promise<string> {
  const branch = opts.branch ?? "main";
  const files = opts.files ?? DEFAULT_FILES;
  const bareDir = join(root, `${name}.git`);
  await git(["init", "--bare", "--quiet", `--initial-branch=${branch}`, bareDir]);
  await git(["config", "http.receivepack", "true"], { cwd: bareDir });
  if (Object.keys(files).length > 0) {
    const scratch = join(root, "scratch");
    await git(["init", "--quiet", `--initial-branch=${branch}`, scratch]);
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(scratch, path)), { recursive: true });
      writeFileSync(join(scratch, path), content);
    }
    await git(["add", "--all"], { cwd: scratch });
    await git(["commit", "--quiet", "-m", "Initial commit"], { cwd: scratch });
    await git(["push", "--quiet", bareDir, `HEAD:refs/heads/${branch}`], { cwd: scratch });
    rmSync(scratch, { recursive: true, force: true });
  }
  return bareDir;
}

/** What both kinds of remote offer for looking inside the bare repository. */
export interface BareRemote {
  /** What a clone is given: an http URL or a local path. */
  url: string;
  bareDir: string;
  branch: string;
  /** Commit id of `refs/heads/<branch>` (default: the remote's branch), or null when absent. */
  head(branch?: string): Promise<string | null>;
  /** Content of `path` at the tip of `branch`, or null when the file is not there. */
  show(path: string, branch?: string): Promise<string | null>;
  /** Newest-first commits of `branch`. */
  log(branch?: string, max?: number): Promise<LogEntry[]>;
  close(): Promise<void>;
}

export interface LogEntry {
  sha: string;
  subject: string;
  author_name: string;
  author_email: string;
}

function bareInspectors(bareDir: string, defaultBranch: string) {
  return {
    async head(branch = defaultBranch) {
      const r = await tryGit(["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`], { cwd: bareDir });
      return r.code === 0 ? r.stdout.trim() : null;
    },
    async show(path: string, branch = defaultBranch) {
      const r = await tryGit(["show", `refs/heads/${branch}:${path}`], { cwd: bareDir });
      return r.code === 0 ? r.stdout : null;
    },
    async log(branch = defaultBranch, max = 50) {
      return parseLog(await tryGit(["log", `--max-count=${max}`, LOG_FORMAT, `refs/heads/${branch}`], { cwd: bareDir }));
    },
  };
}

const LOG_FORMAT = "--format=%H%x1f%s%x1f%an%x1f%ae%x1e";

function parseLog(r: GitResult): LogEntry[] {
  if (r.code !== 0) return [];
  return r.stdout
    .split("\x1e")
    .map((s) => s.trim())
    .filter((s) => s !== "")
    .map((s) => {
      const [sha, subject, author_name, author_email] = s.split("\x1f");
      return { sha: sha!, subject: subject!, author_name: author_name!, author_email: author_email! };
    });
}

/** A bare repository on a local path: for the native `git` engine (same transport as SSH). */
export async function createLocalBareRemote(opts: BareRepoOptions = {}): Promise<BareRemote> {
  const root = mkdtempSync(join(tmpdir(), "quire-git-local-"));
  const branch = opts.branch ?? "main";
  const bareDir = await createBareRepo(root, "remote", opts);
  return {
    url: bareDir,
    bareDir,
    branch,
    ...bareInspectors(bareDir, branch),
    async close() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export interface GitHttpRemoteOptions extends BareRepoOptions {
  /** Require HTTP basic auth with these credentials (a token is sent as the password). */
  auth?: { username: string; token: string };
}

export interface GitHttpRemote extends BareRemote {
  /** `http://127.0.0.1:<port>/remote.git` — without credentials. */
  url: string;
  /** The same URL with the credentials in it (only when auth is on; otherwise equal to url). */
  authUrl: string;
  /** Requests served so far, e.g. `GET /remote.git/info/refs?service=git-upload-pack 200`. */
  requests: string[];
}

/**
 * A bare repository served over git's smart HTTP protocol on 127.0.0.1, port 0: `git
 * http-backend` runs as a CGI program for every request.
 */
export async function startGitHttpRemote(opts: GitHttpRemoteOptions = {}): Promise<GitHttpRemote> {
  const root = mkdtempSync(join(tmpdir(), "quire-git-http-"));
  const branch = opts.branch ?? "main";
  const bareDir = await createBareRepo(root, "remote", opts);
  const requests: string[] = [];
  const expectedAuth = opts.auth ? "Basic " + Buffer.from(`${opts.auth.username}:${opts.auth.token}`).toString("base64") : null;

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    // Pushes of large trees can take a while on a loaded machine.
    idleTimeout: 120,
    async fetch(req) {
      const url = new URL(req.url);
      const line = `${req.method} ${url.pathname}${url.search}`;
      if (expectedAuth !== null && req.headers.get("authorization") !== expectedAuth) {
        requests.push(`${line} 401`);
        return new Response("authentication required\n", { status: 401, headers: { "WWW-Authenticate": 'Basic realm="git"' } });
      }
      const res = await runCgi(req, root, opts.auth?.username);
      requests.push(`${line} ${res.status}`);
      return res;
    },
  });

  const base = `http://127.0.0.1:${server.port}/remote.git`;
  const authUrl = opts.auth
    ? `http://${encodeURIComponent(opts.auth.username)}:${encodeURIComponent(opts.auth.token)}@127.0.0.1:${server.port}/remote.git`
    : base;
  return {
    url: base,
    authUrl,
    bareDir,
    branch,
    requests,
    ...bareInspectors(bareDir, branch),
    async close() {
      await server.stop(true);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** The CGI bridge: request → `git http-backend` (env + body on stdin) → CGI headers + body → response. */
async function runCgi(req: Request, projectRoot: string, remoteUser: string | undefined): Promise<Response> {
  const url = new URL(req.url);
  const env: Record<string, string> = {
    GIT_PROJECT_ROOT: projectRoot,
    GIT_HTTP_EXPORT_ALL: "1",
    GATEWAY_INTERFACE: "CGI/1.1",
    SERVER_PROTOCOL: "HTTP/1.1",
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.replace(/^\?/, ""),
    REQUEST_METHOD: req.method,
    CONTENT_TYPE: req.headers.get("content-type") ?? "",
    REMOTE_ADDR: "127.0.0.1",
    // http-backend refuses receive-pack for anonymous users unless http.receivepack is set (it is);
    // with auth on, name the user the way a web server would.
    ...(remoteUser ? { REMOTE_USER: remoteUser } : {}),
  };
  const contentLength = req.headers.get("content-length");
  if (contentLength) env.CONTENT_LENGTH = contentLength;
  const encoding = req.headers.get("content-encoding");
  if (encoding) env.HTTP_CONTENT_ENCODING = encoding;
  const protocol = req.headers.get("git-protocol");
  if (protocol) env.GIT_PROTOCOL = protocol;

  const proc = Bun.spawn(["git", "http-backend"], {
    env: gitEnv(env),
    stdin: req.body ? "pipe" : "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  if (req.body && proc.stdin) {
    const sink = proc.stdin;
    // Stream the body into the CGI's stdin as it arrives; close it so http-backend sees EOF.
    void (async () => {
      try {
        for await (const chunk of req.body as unknown as AsyncIterable<Uint8Array>) {
          sink.write(chunk);
          await sink.flush();
        }
      } catch {
        // the client went away; http-backend sees EOF below
      } finally {
        try {
          await sink.end();
        } catch {
          /* already closed */
        }
      }
    })();
  }
  const stderr = new Response(proc.stderr).text();

  const reader = proc.stdout.getReader();
  let buffered: Uint8Array = new Uint8Array(0);
  let headerEnd = -1;
  let sepLen = 0;
  while (headerEnd < 0) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered = concat(buffered, value);
    [headerEnd, sepLen] = findHeaderEnd(buffered);
  }
  if (headerEnd < 0) {
    await proc.exited;
    return new Response(`git http-backend produced no headers: ${await stderr}`, { status: 500 });
  }
  const headerText = new TextDecoder().decode(buffered.subarray(0, headerEnd));
  const rest = buffered.subarray(headerEnd + sepLen);
  const headers = new Headers();
  let status = 200;
  for (const line of headerText.split(/\r?\n/)) {
    const i = line.indexOf(":");
    if (i <= 0) continue;
    const name = line.slice(0, i).trim();
    const value = line.slice(i + 1).trim();
    if (name.toLowerCase() === "status") status = Number.parseInt(value, 10) || 200;
    else headers.append(name, value);
  }
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      if (rest.length > 0) controller.enqueue(rest);
    },
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel() {
      proc.kill();
    },
  });
  return new Response(status === 204 || status === 304 ? null : body, { status, headers });
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** Index of the blank line ending the CGI headers and its length (CRLFCRLF or LFLF). */
function findHeaderEnd(buf: Uint8Array): [number, number] {
  for (let i = 0; i < buf.length - 1; i++) {
    if (buf[i] === 10 && buf[i + 1] === 10) return [i, 2];
    if (buf[i] === 13 && buf[i + 1] === 10 && buf[i + 2] === 13 && buf[i + 3] === 10) return [i, 4];
  }
  return [-1, 0];
}

export interface Author {
  name: string;
  email: string;
}

/**
 * A working clone driven by the real `git` command, independent from Quire's own work tree:
 * the developer editing in an IDE and pushing.
 */
export class IdeClone {
  private constructor(
    readonly dir: string,
    readonly branch: string,
    private readonly root: string,
  ) {}

  /** Clones `url` (http URL, with credentials if needed, or a local path) at `branch`. */
  static async clone(url: string, opts: { branch?: string } = {}): Promise<IdeClone> {
    const root = mkdtempSync(join(tmpdir(), "quire-ide-"));
    const dir = join(root, "work");
    const branch = opts.branch ?? "main";
    await git(["clone", "--quiet", "--no-checkout", url, dir]);
    // An empty remote (or one without this branch yet) gets an unborn branch to commit on.
    const tracked = await tryGit(["rev-parse", "--verify", "--quiet", `refs/remotes/origin/${branch}`], { cwd: dir });
    if (tracked.code === 0) await git(["checkout", "--quiet", "-B", branch, `origin/${branch}`], { cwd: dir });
    else await git(["checkout", "--quiet", "--orphan", branch], { cwd: dir });
    await git(["config", "user.name", "IDE Developer"], { cwd: dir });
    await git(["config", "user.email", "ide@example.test"], { cwd: dir });
    return new IdeClone(dir, branch, root);
  }

  /** Any git command inside the clone. */
  git(args: string[], env?: Record<string, string>): Promise<string> {
    return git(args, { cwd: this.dir, env });
  }

  private abs(path: string): string {
    const p = resolve(this.dir, path);
    if (!p.startsWith(this.dir + "/")) throw new Error(`path outside the clone: ${path}`);
    return p;
  }

  writeFile(path: string, content: string | Uint8Array): void {
    const p = this.abs(path);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
  }

  readFile(path: string): string | null {
    const p = this.abs(path);
    return existsSync(p) ? readFileSync(p, "utf8") : null;
  }

  rm(path: string): void {
    rmSync(this.abs(path), { recursive: true, force: true });
  }

  mv(from: string, to: string): void {
    const dest = this.abs(to);
    mkdirSync(dirname(dest), { recursive: true });
    renameSync(this.abs(from), dest);
  }

  /** Stages everything (adds, edits, deletions, renames) and commits; returns the new commit id. */
  async commit(message: string, author: Author = { name: "IDE Developer", email: "ide@example.test" }): Promise<string> {
    await this.git(["add", "--all"]);
    await this.git(["commit", "--quiet", "--allow-empty", "-m", message], {
      GIT_AUTHOR_NAME: author.name,
      GIT_AUTHOR_EMAIL: author.email,
      GIT_COMMITTER_NAME: author.name,
      GIT_COMMITTER_EMAIL: author.email,
    });
    return (await this.git(["rev-parse", "HEAD"])).trim();
  }

  /** Pushes HEAD to `branch` (default: the cloned branch) and throws when refused. */
  async push(branch = this.branch): Promise<void> {
    await this.git(["push", "--quiet", "origin", `HEAD:refs/heads/${branch}`]);
  }

  /** Like push, but reports a refusal (e.g. non-fast-forward) instead of throwing. */
  tryPush(branch = this.branch): Promise<GitResult> {
    return tryGit(["push", "--quiet", "origin", `HEAD:refs/heads/${branch}`], { cwd: this.dir });
  }

  /**
   * What a developer does when the remote moved on (Quire pushes its own commits): pull (merge)
   * and push again, a few times. Refusals other than "remote moved on" are rethrown.
   */
  async pushWithPull(branch = this.branch, attempts = 4): Promise<void> {
    for (let i = 1; ; i++) {
      const r = await this.tryPush(branch);
      if (r.code === 0) return;
      const racing = /fetch first|non-fast-forward|failed to update ref|cannot lock ref/.test(r.stderr);
      if (!racing || i >= attempts) throw new Error(`git push failed: ${r.stderr.trim()}`);
      await Bun.sleep(50 * i);
      const pulled = await tryGit(["pull", "--quiet", "--no-rebase", "--no-edit", "origin", branch], { cwd: this.dir });
      if (pulled.code !== 0 && !/couldn't find remote ref/.test(pulled.stderr)) throw new Error(`git pull failed: ${(pulled.stderr + pulled.stdout).trim()}`);
    }
  }

  /** Fetches and fast-forwards or merges the remote branch (no rebase). */
  async pull(branch = this.branch): Promise<void> {
    await this.git(["pull", "--quiet", "--no-rebase", "--no-edit", "origin", branch]);
  }

  /** Newest-first commits of HEAD. */
  async log(max = 50): Promise<LogEntry[]> {
    return parseLog(await tryGit(["log", `--max-count=${max}`, LOG_FORMAT, "HEAD"], { cwd: this.dir }));
  }

  async head(): Promise<string> {
    return (await this.git(["rev-parse", "HEAD"])).trim();
  }

  async close(): Promise<void> {
    rmSync(this.root, { recursive: true, force: true });
  }
}
