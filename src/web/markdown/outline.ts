/**
 * A page's headings as the site names them, for `#heading` link targets in the editor: each
 * heading's plain text and the id the renderer gives it (github-slugger over the plain text, a
 * repeated heading numbered, as src/publish/render/markdown.ts does), and the target a wikilink
 * should write for it: the heading's text, which the renderer slugs to that id, or the id itself
 * when the text cannot be written inside `[[…]]` or names an earlier heading too.
 */
import { marked, type Token, type Tokens } from "marked";
import Slugger, { slug } from "github-slugger";

export interface OutlineHeading {
  depth: number;
  text: string;
  id: string;
  /** What follows `#` in a wikilink to this heading. */
  target: string;
}

function plainText(tokens: Token[] | undefined): string {
  let out = "";
  for (const t of tokens ?? []) {
    if (t.type === "html") continue;
    if ("tokens" in t && t.tokens && t.tokens.length > 0) out += plainText(t.tokens);
    else if (t.type === "image") out += (t as Tokens.Image).text;
    else if ("text" in t && typeof t.text === "string") out += t.text;
  }
  return out;
}

const FRONTMATTER = /^---\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/;

export function pageOutline(markdown: string): OutlineHeading[] {
  const slugger = new Slugger();
  const out: OutlineHeading[] = [];
  const walk = (tokens: Token[]) => {
    for (const t of tokens) {
      if (t.type === "heading") {
        const text = plainText((t as Tokens.Heading).tokens).trim();
        const id = slugger.slug(text === "" ? "section" : text);
        const plain = text !== "" && !/[[\]|\n]/.test(text) && slug(text) === id;
        out.push({ depth: (t as Tokens.Heading).depth, text, id, target: plain ? text : id });
      } else if (t.type === "blockquote" || t.type === "list_item") walk((t as Tokens.Blockquote).tokens ?? []);
      else if (t.type === "list") for (const item of (t as Tokens.List).items) walk(item.tokens);
    }
  };
  walk(marked.lexer(markdown.replace(FRONTMATTER, ""), { gfm: true }));
  return out;
}

/**
 * The workspace path of the page a relative Markdown link names (`../guide/intro.md#x` written
 * in a page of the folder `notes/` names `guide/intro.md`), as the site resolves it; null for a web
 * address, a file that is not a page, or a path that leaves the workspace.
 */
export function linkedPagePath(pagePath: string, href: string): string | null {
  const path = href.split(/[?#]/, 1)[0]!;
  if (!/\.md$/i.test(path) || /^[a-z][\w+.-]*:/i.test(path) || /^[\\/]{2}/.test(path)) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(path).replace(/\\/g, "/");
  } catch {
    return null;
  }
  const parts = decoded.startsWith("/") ? [] : pagePath.split("/").slice(0, -1);
  for (const part of decoded.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length === 0) return null;
      parts.pop();
    } else parts.push(part);
  }
  return parts.length > 0 ? parts.join("/") : null;
}
