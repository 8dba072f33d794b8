import type { Token } from "marked";
/** The renderer's public shapes (re-exported by ./index.ts; keep them stable: the site, the export and the preview build on them). */

/** Something a page links to, inside the workspace. */
export interface LinkTarget {
  kind: "page" | "file";
  /** Workspace-relative and normalized; pages end in `.md`. */
  path: string;
  /** The fragment after `#`, decoded (for wikilinks: the slug of the heading named). */
  anchor?: string;
}

export interface RenderOptions {
  /** Workspace-relative path of the page being rendered, e.g. "guide/intro.md". */
  pagePath: string;
  /** Turns a target into a URL (site, export and preview each have their own); null = a dead link. */
  resolveLink(target: LinkTarget): string | null;
  /** Whether a page exists, for wikilinks tried relative to the page's folder. */
  pageExists?(path: string): boolean;
  /**
   * How `::embed` shows an allow-listed player: "frame" (default: an <iframe> from the provider)
   * or "link" (a plain link; a static export fetches nothing from another origin).
   */
  embeds?: "frame" | "link";
}

export interface Heading {
  depth: number;
  text: string;
  id: string;
}

/** A problem with something the page wrote (a broken component, say); the page also shows it. */
export interface RenderNotice {
  component: string;
  message: string;
  /** 1-based line in the Markdown given to renderMarkdown, when known. */
  line?: number;
}

export interface RenderResult {
  html: string;
  headings: Heading[];
  hasMermaid: boolean;
  hasMath: boolean;
  hasCode: boolean;
  notices: RenderNotice[];
}

/** A footnote's definition, collected while a page is lexed (footnotes.ts). */
export interface FootnoteDefinition {
  label: string;
  tokens: Token[];
  /** Number in order of first reference; 0 while unreferenced. */
  number: number;
  refs: number;
  id: string;
}
