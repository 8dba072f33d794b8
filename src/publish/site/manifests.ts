/**
 * The site's three manifests under `.quire/` (docs/architecture.md §9): `publish.yaml` (which pages are on
 * the site, winning over frontmatter), `nav.yaml` (the navigation) and `redirects.yaml` (old
 * paths → new). Each is optional. A malformed one is reported as a problem and ignored as a
 * whole — the site stays up with the pages' own frontmatter, the page tree and no redirects —
 * so a typo can never take pages offline or publish a draft.
 *
 * publish.yaml:   `pages: { guides/draft.md: true, internal/notes.md: false }` (or the map alone)
 * nav.yaml:       a list (or `nav:` list) of nodes:
 *                   `- file: guides/intro.md`  (optional `title:`)
 *                   `- section: Guides` with `children: [...]` (optional `file:` for its own page)
 *                   `- heading: Reference`
 *                   `- link: Status page` with `url: https://status.example.com`
 * redirects.yaml: `redirects: { old/path: new/path }` (or the map alone, or a list of
 *                 `{from, to}`); paths are workspace paths with or without `.md`; `to` may also
 *                 be an absolute http(s) URL.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";

export type NavSpec =
  | { kind: "file"; path: string; title?: string }
  | { kind: "section"; title: string; path?: string; children: NavSpec[] }
  | { kind: "heading"; title: string }
  | { kind: "link"; title: string; url: string };

export interface Manifests {
  /** Page path → on the site or not; null when there is no (usable) publish.yaml. */
  publish: Map<string, boolean> | null;
  nav: NavSpec[] | null;
  /** From key (workspace path without `.md`) → target key or absolute URL. */
  redirects: Map<string, string>;
  /** One line per manifest that could not be used, for the log and the Site screen. */
  problems: string[];
}

const MAX_MANIFEST_BYTES = 512 * 1024;
const MAX_NAV_DEPTH = 8;
const MAX_NAV_NODES = 5000;

/** A page path in a manifest: strips a leading `/`, adds `.md`. Not a trust boundary: only used as a lookup key. */
function manifestPath(raw: string): string {
  const p = raw.trim().replace(/^\/+/, "");
  return p.toLowerCase().endsWith(".md") ? p : `${p}.md`;
}

/** A redirect key: workspace path without `.md`, no leading or trailing `/`. */
export function redirectKey(raw: string): string {
  return raw.trim().replace(/^\/+|\/+$/g, "").replace(/\.md$/i, "");
}

function readYaml(root: string, name: string, problems: string[]): unknown {
  const abs = join(root, ".quire", name);
  let text: string;
  try {
    if (statSync(abs).size > MAX_MANIFEST_BYTES) {
      problems.push(`.quire/${name}: larger than ${MAX_MANIFEST_BYTES / 1024} KB; ignored`);
      return undefined;
    }
    text = readFileSync(abs, "utf8");
  } catch {
    return undefined; // absent: nothing to say
  }
  try {
    return Bun.YAML.parse(text);
  } catch (error) {
    problems.push(`.quire/${name}: not valid YAML (${(error as Error).message}); ignored`);
    return undefined;
  }
}

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

function parsePublish(value: unknown, problems: string[]): Map<string, boolean> | null {
  if (value === undefined || value === null) return null;
  const map = isMap(value) && isMap(value.pages) ? value.pages : value;
  if (!isMap(map)) {
    problems.push(".quire/publish.yaml: expected a map of page paths to true/false; ignored");
    return null;
  }
  const out = new Map<string, boolean>();
  for (const [path, on] of Object.entries(map)) {
    if (typeof on !== "boolean") {
      problems.push(`.quire/publish.yaml: "${path}" must be true or false; the file is ignored`);
      return null;
    }
    out.set(manifestPath(path), on);
  }
  return out;
}

function parseNav(value: unknown, problems: string[]): NavSpec[] | null {
  if (value === undefined || value === null) return null;
  const list = isMap(value) && Array.isArray(value.nav) ? value.nav : value;
  if (!Array.isArray(list)) {
    problems.push(".quire/nav.yaml: expected a list of navigation entries; ignored");
    return null;
  }
  let count = 0;
  const node = (v: unknown, depth: number): NavSpec => {
    if (++count > MAX_NAV_NODES) throw new Error(`more than ${MAX_NAV_NODES} entries`);
    if (typeof v === "string") return { kind: "file", path: manifestPath(v) };
    if (!isMap(v)) throw new Error("an entry is neither a page path nor a map");
    const title = typeof v.title === "string" ? v.title : undefined;
    if (typeof v.section === "string") {
      if (depth >= MAX_NAV_DEPTH) throw new Error(`sections nest deeper than ${MAX_NAV_DEPTH}`);
      const children = v.children ?? [];
      if (!Array.isArray(children)) throw new Error(`section "${v.section}": children must be a list`);
      return {
        kind: "section",
        title: v.section,
        ...(typeof v.file === "string" ? { path: manifestPath(v.file) } : {}),
        children: children.map((c) => node(c, depth + 1)),
      };
    }
    if (typeof v.file === "string") return { kind: "file", path: manifestPath(v.file), ...(title !== undefined ? { title } : {}) };
    if (typeof v.heading === "string") return { kind: "heading", title: v.heading };
    if (typeof v.link === "string") {
      if (typeof v.url !== "string" || !/^(https?:\/\/|mailto:)/i.test(v.url)) throw new Error(`link "${v.link}": url must be http(s) or mailto`);
      return { kind: "link", title: v.link, url: v.url };
    }
    throw new Error("an entry has none of file, section, heading or link");
  };
  try {
    return list.map((v) => node(v, 0));
  } catch (error) {
    problems.push(`.quire/nav.yaml: ${(error as Error).message}; ignored (navigation follows the page tree)`);
    return null;
  }
}

function parseRedirects(value: unknown, problems: string[]): Map<string, string> {
  const out = new Map<string, string>();
  if (value === undefined || value === null) return out;
  const body = isMap(value) && (isMap(value.redirects) || Array.isArray(value.redirects)) ? value.redirects : value;
  const pairs: Array<[unknown, unknown]> = Array.isArray(body)
    ? body.map((e) => (isMap(e) ? [e.from, e.to] : [undefined, undefined]))
    : isMap(body)
      ? Object.entries(body)
      : [[undefined, undefined]];
  for (const [from, to] of pairs) {
    if (typeof from !== "string" || typeof to !== "string" || from.trim() === "" || to.trim() === "") {
      problems.push(".quire/redirects.yaml: expected entries of old path → new path; ignored");
      return new Map();
    }
    const target = /^https?:\/\//i.test(to.trim()) ? to.trim() : redirectKey(to);
    out.set(redirectKey(from), target);
  }
  return out;
}

/** Reads the three manifests of a workspace folder. Never throws. */
export function readManifests(root: string): Manifests {
  const problems: string[] = [];
  const publish = parsePublish(readYaml(root, "publish.yaml", problems), problems);
  const nav = parseNav(readYaml(root, "nav.yaml", problems), problems);
  const redirects = parseRedirects(readYaml(root, "redirects.yaml", problems), problems);
  return { publish, nav, redirects, problems };
}

/** A cheap fingerprint of the manifests on disk (size and mtime), to notice edits made outside the ledger. */
export function manifestStamp(root: string): string {
  let stamp = "";
  for (const name of ["publish.yaml", "nav.yaml", "redirects.yaml"]) {
    try {
      const s = statSync(join(root, ".quire", name));
      stamp += `${s.size}:${s.mtimeMs};`;
    } catch {
      stamp += "-;";
    }
  }
  return stamp;
}
