import * as fs from "node:fs";
import { spawnGit } from "../git/native-git.ts";
import type { CommitInfo, CommitSource, GitObjects, PageFileChange } from "./git-objects.ts";

/**
 * The version index's fast reader when the `git` binary exists (docs/decisions/page-history.md
 * §2): one streaming `git log --raw` from the frontier gives every commit with its first-parent
 * file changes, and one `git cat-file --batch` the blobs, instead of an object read per commit,
 * tree and blob through isomorphic-git. The walk (order, ranks, renames) stays the index's own:
 * this only answers its questions, with the same answers as GitObjects. Whatever the log does not
 * hold (it ended early, a commit the walk reaches another way) is asked of GitObjects.
 */

/** Start of each commit in the log; its fields are NUL-separated (none can hold a NUL). */
const FORMAT = "%x01%H %T %at%x00%P%x00%an%x00%ae%x00%B%x00";
const NUL = 0;
const LF = 10;
const COLON = 58;
const SOH = 1;
const decoder = new TextDecoder();

/** A growing window over a process's output, read as far as each answer needs. */
class ByteReader {
  private buf = new Uint8Array(0);
  private pos = 0;
  private ended = false;

  constructor(private readonly reader: { read(): Promise<{ done: boolean; value?: Uint8Array | undefined }> }) {}

  private async more(): Promise<boolean> {
    if (this.ended) return false;
    const { value, done } = await this.reader.read();
    if (done || !value) {
      this.ended = true;
      return false;
    }
    const rest = this.buf.length - this.pos;
    const next = new Uint8Array(rest + value.length);
    next.set(this.buf.subarray(this.pos));
    next.set(value, rest);
    this.buf = next;
    this.pos = 0;
    return true;
  }

  async peek(): Promise<number | null> {
    while (this.pos >= this.buf.length) if (!(await this.more())) return null;
    return this.buf[this.pos]!;
  }

  skip(): void {
    this.pos++;
  }

  /** The bytes up to `byte` (consumed with it), or null when the output ends first. */
  async until(byte: number): Promise<Uint8Array | null> {
    let scanned = 0;
    for (;;) {
      const i = this.buf.indexOf(byte, this.pos + scanned);
      if (i >= 0) {
        const out = this.buf.subarray(this.pos, i);
        this.pos = i + 1;
        return out;
      }
      scanned = this.buf.length - this.pos;
      if (!(await this.more())) return null;
    }
  }

  /** Exactly n bytes (a copy), or null when the output ends first. */
  async take(n: number): Promise<Uint8Array | null> {
    while (this.buf.length - this.pos < n) if (!(await this.more())) return null;
    const out = this.buf.slice(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

/** Blob modes (file, executable, symlink): isomorphic-git reads these as blobs; a submodule (160000) is not one. */
const isBlobMode = (mode: string) => mode.startsWith("10") || mode === "120000";

/**
 * One raw entry (`:oldmode newmode old new status`) as GitObjects.pageChanges would report it: a
 * Markdown file outside dot-folders whose blob differs (a mode change alone is no change).
 */
function pageChange(meta: string, path: string): PageFileChange | null {
  if (!path.endsWith(".md") || meta.startsWith("::")) return null;
  const parts = path.split("/");
  for (let i = 0; i < parts.length - 1; i++) if (parts[i]!.startsWith(".")) return null;
  const [oldMode, newMode, oldOid, newOid] = meta.slice(1).split(" ");
  const before = oldMode && isBlobMode(oldMode) ? oldOid! : null;
  const after = newMode && isBlobMode(newMode) ? newOid! : null;
  return before === after ? null : { path, before, after };
}

export class NativeLog implements CommitSource {
  private readonly log;
  private readonly reader: ByteReader;
  private logEnded = false;
  /** Commits read from the log that the walk has not asked for yet (the log's order is not the walk's). */
  private readonly pending = new Map<string, { info: CommitInfo; changes: PageFileChange[] }>();
  private readonly changed = new Map<string, PageFileChange[]>();
  private batch: ReturnType<typeof spawnGit> = null;
  private batchReader: ByteReader | null = null;
  private batchFailed = false;
  /** Blob requests written to cat-file, answered in order (undefined: ask isomorphic-git instead). */
  private readonly waiting: Array<(bytes: Uint8Array | null | undefined) => void> = [];
  private pumping = false;

  private constructor(
    private readonly fallback: GitObjects,
    log: NonNullable<ReturnType<typeof spawnGit>>,
  ) {
    this.log = log;
    log.stdin.end();
    this.reader = new ByteReader(log.stdout.getReader());
  }

  /**
   * The native reader from these commits, or null when it cannot answer exactly as GitObjects
   * would: no git binary, or a shallow or grafted repository (git log would show its edge
   * commits without their parents, which isomorphic-git reads from the commit itself).
   */
  static open(fallback: GitObjects, from: string[]): NativeLog | null {
    const gitDir = `${fallback.dir}/.git`;
    if (from.length === 0 || fs.existsSync(`${gitDir}/shallow`) || fs.existsSync(`${gitDir}/info/grafts`)) return null;
    const args = ["--no-replace-objects", "log", "--raw", "--no-renames", "-z", "--root", "--no-abbrev", "--no-show-signature", "--no-color", "--no-decorate", `--format=${FORMAT}`, ...from, "--"];
    const log = spawnGit(args, fallback.dir);
    return log ? new NativeLog(fallback, log) : null;
  }

  async commit(oid: string): Promise<CommitInfo | null> {
    for (;;) {
      const hit = this.pending.get(oid);
      if (hit) {
        this.pending.delete(oid);
        this.changed.set(oid, hit.changes);
        return hit.info;
      }
      if (!(await this.next())) return this.fallback.commit(oid);
    }
  }

  changes(commit: CommitInfo): Promise<PageFileChange[]> {
    const known = this.changed.get(commit.oid);
    if (!known) return this.fallback.changes(commit);
    this.changed.delete(commit.oid);
    return Promise.resolve(known);
  }

  /** Reads one more commit from the log into `pending`; false when the log has ended. */
  private async next(): Promise<boolean> {
    if (this.logEnded) return false;
    const r = this.reader;
    const field = async () => {
      const bytes = await r.until(NUL);
      if (bytes === null) throw new Error("log ended inside a commit");
      return decoder.decode(bytes);
    };
    try {
      for (;;) {
        const b = await r.peek();
        if (b === null) return this.end();
        if (b !== NUL && b !== LF) break;
        r.skip();
      }
      if ((await r.peek()) !== SOH) return this.end();
      r.skip();
      const [oid, tree, at] = (await field()).split(" ");
      const parentsField = await field();
      const name = await field();
      const email = await field();
      const message = await field();
      const changes: PageFileChange[] = [];
      for (;;) {
        const b = await r.peek();
        if (b === NUL || b === LF) {
          r.skip();
          continue;
        }
        if (b !== COLON) break;
        const meta = await field();
        const change = pageChange(meta, await field());
        if (change) changes.push(change);
      }
      const info: CommitInfo = { oid: oid!, tree: tree!, parents: parentsField === "" ? [] : parentsField.split(" "), message, author: { name, email, timestamp: Number(at) } };
      this.pending.set(info.oid, { info, changes });
      return true;
    } catch {
      return this.end();
    }
  }

  private end(): false {
    this.logEnded = true;
    return false;
  }

  blob(oid: string): Promise<Uint8Array | null> {
    if (this.batchFailed) return this.fallback.blob(oid);
    if (!this.batch) {
      this.batch = spawnGit(["--no-replace-objects", "cat-file", "--batch"], this.fallback.dir);
      if (!this.batch) {
        this.batchFailed = true;
        return this.fallback.blob(oid);
      }
      this.batchReader = new ByteReader(this.batch.stdout.getReader());
    }
    const answer = new Promise<Uint8Array | null | undefined>((resolve) => this.waiting.push(resolve));
    this.batch.stdin.write(`${oid}\n`);
    void this.batch.stdin.flush();
    void this.pump();
    return answer.then((bytes) => (bytes === undefined ? this.fallback.blob(oid) : bytes));
  }

  /** Answers the blob requests in the order they were written (`<oid> blob <size>\n<bytes>\n`, or `<oid> missing\n`). */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    const r = this.batchReader!;
    try {
      while (this.waiting.length > 0) {
        const header = await r.until(LF);
        if (header === null) throw new Error("cat-file ended");
        const [, type, size] = decoder.decode(header).split(" ");
        let bytes: Uint8Array | null = null;
        if (size !== undefined) {
          const body = await r.take(Number(size) + 1);
          if (body === null) throw new Error("cat-file ended");
          if (type === "blob") bytes = body.subarray(0, body.length - 1);
        }
        this.waiting.shift()!(bytes);
      }
    } catch {
      // The process failed: the unanswered requests and later ones go to isomorphic-git.
      this.batchFailed = true;
      for (const resolve of this.waiting.splice(0)) resolve(undefined);
    } finally {
      this.pumping = false;
    }
  }

  close(): void {
    this.log.kill();
    this.batch?.kill();
  }
}
