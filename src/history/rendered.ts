import { diffArrays } from "diff";
import { splitFile } from "../content/frontmatter.ts";
import type { LinkTarget } from "../publish/render/index.ts";

/** The renderer loads with the first rendered version, not with the server (test/cli/serve-start-imports.test.ts). */
const renderMarkdown: typeof import("../publish/render/index.ts").renderMarkdown = (...args) =>
  (require("../publish/render/index.ts") as typeof import("../publish/render/index.ts")).renderMarkdown(...args);

/**
 * A version as a reader sees it: the page body through the published site's renderer, and a
 * rendered diff of two versions block by block (docs/decisions/page-history.md §8). Links point
 * into the web app (a page's editor, a file's content URL), not to a published site: a version is
 * read inside the app, and the page it links to may not be published.
 */

/** Where a rendered version's links go: the workspace's pages in the app, its files through the content API. */
function linkResolver(slug: string) {
  const encode = (path: string) => path.split("/").map(encodeURIComponent).join("/");
  return (target: LinkTarget): string => {
    const hash = target.anchor ? `#${encodeURIComponent(target.anchor)}` : "";
    if (target.kind === "page") return `/w/${encodeURIComponent(slug)}/p/${encode(target.path)}${hash}`;
    return `/api/v1/content/${encodeURIComponent(slug)}/${encode(target.path)}`;
  };
}

const bodyOf = (text: string) => splitFile(text).body;

/** The body of a page file (frontmatter removed) rendered as the site renders it: sanitized HTML. */
export function renderVersion(slug: string, path: string, text: string): string {
  return renderMarkdown(bodyOf(text), { pagePath: path, resolveLink: linkResolver(slug), embeds: "link" }).html;
}

/**
 * The top-level blocks of a Markdown body: runs of lines separated by blank lines, a fenced code
 * block (blank lines inside it too) kept whole. Good enough to line blocks up for a diff; each
 * block is rendered on its own, so a footnote or reference link defined in another block shows
 * as plain text in the diff (the full rendering of either version shows it right).
 */
export function blocksOf(body: string): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  let fence: string | null = null;
  const flush = () => {
    if (current.length > 0) blocks.push(current.join("\n"));
    current = [];
  };
  for (const line of body.replace(/\r\n?/g, "\n").split("\n")) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== null) {
      current.push(line);
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = null;
      continue;
    }
    if (marker) {
      fence = marker;
      current.push(line);
      continue;
    }
    if (line.trim() === "") flush();
    else current.push(line);
  }
  flush();
  return blocks;
}

interface RenderedBlock {
  kind: "same" | "added" | "removed";
  html: string;
}

/** Blocks of the newer version in order, with the older version's removed blocks where they stood. */
export function renderedDiff(slug: string, path: string, before: string, after: string): RenderedBlock[] {
  const opts = { pagePath: path, resolveLink: linkResolver(slug), embeds: "link" as const };
  const out: RenderedBlock[] = [];
  for (const part of diffArrays(blocksOf(bodyOf(before)), blocksOf(bodyOf(after)))) {
    const kind = part.added ? "added" : part.removed ? "removed" : "same";
    for (const block of part.value) out.push({ kind, html: renderMarkdown(block, opts).html });
  }
  return out;
}
