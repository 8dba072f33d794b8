/**
 * Finds references to files in the repository's own text — Markdown documents (`something.md`,
 * optionally with `§n` or `#anchor`) and repository paths (`src/…`, `test/…`, `docs/…`, `bench/…`,
 * `assets/…`) — and reports each one that names nothing: a missing file or folder, a missing
 * numbered section, a missing heading anchor. Used by test/docs/references.test.ts.
 *
 * Where it looks: Markdown files whole; in source files, comments only (a string in code is data —
 * a page path in a test, a URL — not a reference to this repository).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { Glob } from "bun";

export const ROOT = join(import.meta.dir, "../..");
export const SCANNED = ["src", "test", "bench", "docs", "build.ts", "README.md"];
const SOURCE = /\.(ts|tsx|js|mjs|css)$/;

export interface Reference {
  file: string;
  line: number;
  text: string;
  problem?: string;
}

/** The repository files to scan (relative paths), sorted. */
export function scannedFiles(root = ROOT): string[] {
  const files: string[] = [];
  for (const entry of SCANNED) {
    const full = join(root, entry);
    if (!existsSync(full)) continue;
    if (statSync(full).isFile()) files.push(entry);
    else for (const f of new Glob("**/*.{ts,tsx,js,mjs,css,md}").scanSync({ cwd: full, dot: false })) files.push(join(entry, f));
  }
  return files.filter((f) => !f.includes("node_modules/")).sort();
}

/**
 * The text of a source file with everything but comments blanked (line breaks kept, so line
 * numbers hold). Strings, template literals and regular-expression literals are skipped.
 */
export function commentsOnly(source: string): string {
  let out = "";
  let i = 0;
  const n = source.length;
  const blank = (s: string) => s.replace(/[^\n]/g, " ");
  let lastSignificant = "";
  while (i < n) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === "/" && next === "/") {
      const end = source.indexOf("\n", i);
      const stop = end === -1 ? n : end;
      out += source.slice(i, stop);
      i = stop;
      continue;
    }
    if (c === "/" && next === "*") {
      const end = source.indexOf("*/", i + 2);
      const stop = end === -1 ? n : end + 2;
      out += source.slice(i, stop);
      i = stop;
      continue;
    }
    if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      while (j < n && source[j] !== c) {
        if (source[j] === "\\") j++;
        else if (c !== "`" && source[j] === "\n") break;
        j++;
      }
      out += blank(source.slice(i, j + 1));
      i = j + 1;
      lastSignificant = c;
      continue;
    }
    // A regular expression literal: a slash where an operand is expected.
    if (c === "/" && (lastSignificant === "" || "(,=:[!&|?{};+-*%<>~^".includes(lastSignificant))) {
      let j = i + 1;
      let inClass = false;
      while (j < n && source[j] !== "\n" && (inClass || source[j] !== "/")) {
        if (source[j] === "\\") j++;
        else if (source[j] === "[") inClass = true;
        else if (source[j] === "]") inClass = false;
        j++;
      }
      out += blank(source.slice(i, j + 1));
      i = j + 1;
      lastSignificant = "/";
      continue;
    }
    out += c === "\n" ? "\n" : " ";
    if (!/\s/.test(c)) lastSignificant = c;
    i++;
  }
  return out;
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

const headingsCache = new Map<string, { sections: Set<string>; anchors: Set<string> }>();
function headingsOf(file: string): { sections: Set<string>; anchors: Set<string> } {
  let h = headingsCache.get(file);
  if (!h) {
    const sections = new Set<string>();
    const anchors = new Set<string>();
    let fenced = false;
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (/^\s*```/.test(line)) fenced = !fenced;
      const m = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
      if (!m) continue;
      anchors.add(slug(m[1]!));
      const num = /^§?(\d+)[.)]?\s/.exec(m[1]! + " ");
      if (num) sections.add(num[1]!);
    }
    headingsCache.set(file, (h = { sections, anchors }));
  }
  return h;
}

/** Markdown document references: `x.md`, `x.md §n`, `x.md#anchor`. */
const MD_REF = /(?<![\w\-/.])((?:\.\.?\/)*[\w\-/.]*[\w-]\.md)(?![\w-])(?:(?:'s)?\s*§\s*(\d+)|#([\w-]+))?/g;
/** Repository paths; `…`, `*`, `{…}` and `<…>` make a pattern whose fixed folder must exist. */
const PATH_REF = /(?<![\w\-/.@~$])((?:\.\.\/)*(?:src|test|docs|bench|assets)\/[\w\-./*{}<>,…]*)/g;

/** Base names of the repository's own documents (docs/ and the top level). */
let documentNames: Set<string> | undefined;
function documentName(name: string, root: string): boolean {
  documentNames ??= new Set([...new Glob("{*.md,docs/**/*.md}").scanSync({ cwd: root })].map((f) => f.split("/").pop()!));
  return documentNames.has(name);
}

/**
 * Whether a `.md` mention is a reference to a document of this repository rather than a page path
 * in an example (`guide/intro.md`, `page.md#x`): it names a repository folder, is an upper-case
 * document name (README.md), carries a section (`§n`), is the target of a link in a Markdown file,
 * or carries an anchor and is named like one of the repository's documents.
 */
function isDocumentReference(file: string, path: string, section: string | undefined, anchor: string | undefined, before: string, root: string): boolean {
  if (section !== undefined) return true;
  if (/^(\.\.?\/)*(docs|src|test|bench|assets)\//.test(path)) return true;
  if (/(^|\/)[A-Z][A-Z0-9_-]*\.md$/.test(path)) return true;
  if (file.endsWith(".md") && before.endsWith("](")) return true;
  return anchor !== undefined && documentName(path.split("/").pop()!, root);
}

function resolveFrom(file: string, path: string, root: string): string | null {
  const candidates = path.startsWith(".") ? [join(dirname(join(root, file)), path)] : [join(root, path), join(dirname(join(root, file)), path)];
  return candidates.find((c) => existsSync(c)) ?? null;
}

/** Every reference in one file's text (already reduced to what is scanned), each with its problem if any. */
export function referencesIn(file: string, text: string, root = ROOT): Reference[] {
  const refs: Reference[] = [];
  const lines = text.split("\n");
  lines.forEach((lineText, index) => {
    const line = index + 1;
    for (const m of lineText.matchAll(MD_REF)) {
      const [whole, path, section, anchor] = m as unknown as [string, string, string | undefined, string | undefined];
      if (!isDocumentReference(file, path, section, anchor, lineText.slice(0, m.index), root)) continue;
      const ref: Reference = { file, line, text: whole };
      const target = resolveFrom(file, path, root);
      if (!target) ref.problem = `no such document: ${path}`;
      else if (section !== undefined && !headingsOf(target).sections.has(section)) ref.problem = `${path} has no section ${section}`;
      else if (anchor !== undefined && !headingsOf(target).anchors.has(anchor)) ref.problem = `${path} has no heading #${anchor}`;
      refs.push(ref);
    }
    for (const m of lineText.matchAll(PATH_REF)) {
      const raw = m[1]!.replace(/[.,:;…]+$/, "");
      const ref: Reference = { file, line, text: raw };
      const special = raw.search(/[*{}<>,…]/);
      if (special !== -1) {
        const folder = raw.slice(0, raw.lastIndexOf("/", special) + 1);
        if (!resolveFrom(file, folder, root)) ref.problem = `no such folder: ${folder}`;
      } else if (!resolveFrom(file, raw, root)) {
        ref.problem = `no such file or folder: ${raw}`;
      }
      refs.push(ref);
    }
  });
  return refs;
}

/** Every reference in the scanned files. */
export function scanRepository(root = ROOT): Reference[] {
  return scannedFiles(root).flatMap((file) => {
    const source = readFileSync(join(root, file), "utf8");
    return referencesIn(file, SOURCE.test(file) ? commentsOnly(source) : source, root);
  });
}

export const describeRef = (r: Reference) => `${r.file}:${r.line}: ${r.text} — ${r.problem}`;
export const relativeToRoot = (p: string) => relative(ROOT, normalize(p));
