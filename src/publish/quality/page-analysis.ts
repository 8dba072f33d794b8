import { posix } from "node:path";
import GithubSlugger from "github-slugger";
import { HIDDEN, linkRegions } from "../../content/link-regions.ts";
import { MD_LINK, WIKILINK, resolveMdTarget } from "../../content/links.ts";
import { parseYaml, splitFile } from "../../content/frontmatter.ts";
import { parentOf } from "../../content/paths.ts";
import { fleschReadingEase } from "./readability.ts";

/**
 * What the quality scan learns from one page file on its own, without looking at other pages.
 * It depends only on the file's text and its path (relative links resolve from the page's folder),
 * so it is cached by both and reused until the file changes. What depends on other pages (does a
 * link's target exist, has the target that heading, does anything link here) is decided later.
 */
export type Severity = "error" | "warning" | "info";
type FindingKind =
  | "dead_link"
  | "missing_title"
  | "missing_description"
  | "empty_page"
  | "orphan_page"
  | "image_without_alt"
  | "heading_skip"
  | "long_paragraph"
  | "readability";

export interface Finding {
  path: string;
  kind: FindingKind;
  severity: Severity;
  message: string;
  /** 1-based line in the page's body (the Markdown after the frontmatter), when the finding has one. */
  line?: number;
}

/** A link as written: its target is resolved against the workspace's pages at scan time. */
export interface PageLink {
  line: number;
  /** wiki: `[[target]]`; page: a relative `.md` link (already resolved); file: any other relative link or image; anchor: `#heading` on this page. */
  kind: "wiki" | "page" | "file" | "anchor";
  /** As written (for messages and quire_validate_links). */
  raw: string;
  /** wiki: the target as written; page/file: the workspace path it names; null when it climbs out of the workspace. */
  target: string | null;
  /** The heading slug after `#`, if any. */
  anchor: string | null;
}

export interface PageAnalysis {
  /** Findings that need no other page: titles, empty pages, images, headings, paragraphs, readability. */
  findings: Finding[];
  links: PageLink[];
  /** Heading ids as the renderer makes them (github-slugger, duplicates numbered). */
  anchors: string[];
}

/** Words in a paragraph above which it is reported as long (a screenful on a phone). */
const LONG_PARAGRAPH_WORDS = 150;
/** Flesch reading ease below which English prose is reported as hard to read. */
const HARD_TO_READ = 30;

const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$/;
const BLOCK_START = /^\s*(?:[-*+]\s|\d+[.)]\s|\||>|:{2,}|<)/;
const IMG_TAG = /<img\b[^>]*>/gi;
const FENCE = /^ {0,3}(?:```|~~~)/;
const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

export function analyzePage(path: string, text: string): PageAnalysis {
  const findings: Finding[] = [];
  const add = (kind: FindingKind, severity: Severity, message: string, line?: number) =>
    findings.push(line === undefined ? { path, kind, severity, message } : { path, kind, severity, message, line });

  const split = splitFile(text);
  let data: Record<string, unknown> = {};
  try {
    data = parseYaml(split.yaml) as Record<string, unknown>;
  } catch {
    // An unreadable frontmatter block reads as missing keys; the editor already reports the YAML error.
  }
  if (!(typeof data.title === "string" && data.title.trim() !== "") && typeof data.title !== "number") {
    add("missing_title", "warning", "No title in the frontmatter: the file name is used, and search results and tabs show it");
  }
  if (!(typeof data.description === "string" && data.description.trim() !== "")) {
    add("missing_description", "info", "No description: search engines, link previews and llms.txt show none");
  }

  const head = split.bom.length + split.block.length + split.gap.length;
  const { view } = linkRegions(text);
  const body = view.slice(head).replace(/\r/g, "");
  const lines = body.split("\n");
  const rawLines = text.slice(head).replace(/\r/g, "").split("\n");
  // Lines count in the page's Markdown body, as the editor and the page API (`content`) show it.
  const lineOf = (i: number) => i + 1;

  const slugger = new GithubSlugger();
  const anchors: string[] = [];
  const links: PageLink[] = [];
  const prose: string[] = [];
  let lastLevel = 1; // the page title is the page's h1
  let para: { start: number; words: number } | null = null;
  let content = false;
  let fenced = false;

  const closePara = () => {
    if (para && para.words > LONG_PARAGRAPH_WORDS) {
      add("long_paragraph", "info", `A paragraph of ${para.words} words: readers skim, so split it (over ${LONG_PARAGRAPH_WORDS})`, lineOf(para.start));
    }
    para = null;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const raw = rawLines[i] ?? "";
    if (raw.trim() !== "" && !HEADING.test(raw)) content = true;
    if (FENCE.test(raw)) fenced = !fenced;
    // <img> tags sit in HTML blocks, which the link view hides: they are looked for in the raw line.
    if (!fenced && !raw.startsWith("    ")) {
      for (const tag of raw.matchAll(IMG_TAG)) {
        if (!/\balt\s*=\s*("[^"]*\S[^"]*"|'[^']*\S[^']*'|[^\s"'>]+)/i.test(tag[0])) {
          add("image_without_alt", "warning", "An <img> without alt text: readers of screen readers and broken images see nothing", lineOf(i));
        }
      }
    }
    const visible = line.replaceAll(HIDDEN, "").trim();
    if (visible === "") {
      closePara();
      continue;
    }
    const h = line.startsWith(HIDDEN) ? null : HEADING.exec(line);
    if (h) {
      closePara();
      const level = h[1]!.length;
      const title = plainText(h[2]!);
      anchors.push(slugger.slug(title));
      if (level > lastLevel + 1) {
        add("heading_skip", "warning", `Heading level ${level} follows level ${lastLevel}: "${title}" skips a level (screen readers and the table of contents rely on the order)`, lineOf(i));
      }
      lastLevel = level;
      continue;
    }
    scanLinks(line, lineOf(i), path, links, (alt, at) => {
      if (alt.trim() === "") add("image_without_alt", "warning", `An image without alt text (${at}): readers of screen readers and broken images see nothing`, lineOf(i));
    });
    const words = plainText(visible);
    prose.push(words);
    if (line.startsWith(HIDDEN) || BLOCK_START.test(raw)) {
      closePara();
      continue;
    }
    const count = words.split(/\s+/).filter(Boolean).length;
    if (para) para.words += count;
    else para = { start: i, words: count };
  }
  closePara();

  if (!content) add("empty_page", "error", "The page has no content yet");
  const ease = fleschReadingEase(prose.join("\n"));
  if (ease && ease.score < HARD_TO_READ) {
    add("readability", "info", `Hard to read: Flesch reading ease ${ease.score} (below ${HARD_TO_READ}); shorter sentences and plainer words help`);
  }
  return { findings, links, anchors };
}

function scanLinks(line: string, lineNo: number, path: string, links: PageLink[], image: (alt: string, src: string) => void): void {
  for (const m of line.matchAll(WIKILINK)) {
    const [whole, target, heading] = m as unknown as [string, string, string | undefined];
    if (whole.includes(HIDDEN)) continue;
    links.push({ line: lineNo, kind: "wiki", raw: whole, target: target.trim(), anchor: heading ? heading.slice(1) : null });
  }
  for (const m of line.matchAll(MD_LINK)) {
    const [, head, url] = m as unknown as [string, string, string];
    if (url.includes(HIDDEN)) continue;
    const isImage = head.startsWith("!");
    const bare = url.startsWith("<") && url.endsWith(">") ? url.slice(1, -1) : url;
    if (isImage) image(head.slice(2, head.lastIndexOf("]")), bare);
    if (EXTERNAL.test(bare)) continue;
    if (bare.startsWith("#")) {
      if (bare.length > 1) links.push({ line: lineNo, kind: "anchor", raw: bare, target: null, anchor: safeDecode(bare.slice(1)) });
      continue;
    }
    const page = isImage ? null : resolveMdTarget(url, path);
    if (page) {
      const hash = page.suffix.indexOf("#");
      links.push({ line: lineNo, kind: "page", raw: bare, target: page.path, anchor: hash >= 0 ? safeDecode(page.suffix.slice(hash + 1)) || null : null });
      continue;
    }
    links.push({ line: lineNo, kind: "file", raw: bare, target: resolveFile(bare, path), anchor: null });
  }
}

/** A relative (or `/`-rooted) link to a file of the workspace, or null when it climbs out of it. */
function resolveFile(url: string, fromPath: string): string | null {
  const cut = url.search(/[?#]/);
  const u = safeDecode(cut >= 0 ? url.slice(0, cut) : url);
  const joined = u.startsWith("/") ? u.slice(1) : posix.join(parentOf(fromPath), u);
  const p = posix.normalize(joined).replace(/\/+$/, "");
  if (p === ".." || p.startsWith("../") || p.startsWith("/")) return null;
  return p === "." ? "" : p;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Markdown inline syntax stripped to the words a reader sees. */
function plainText(md: string): string {
  return md
    .replaceAll(HIDDEN, " ")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]/g, (_m, t: string, label?: string) => label ?? t)
    .replace(/<[^>]+>/g, "")
    .replace(/`([^`]*)`/g, "$1")
    .replace(/\*+|~~|\b_+|_+\b/g, "")
    .trim();
}

/** The id a heading named in a link would get (`#Getting Started` → `getting-started`). */
export function anchorSlug(anchor: string): string {
  return new GithubSlugger().slug(anchor);
}
