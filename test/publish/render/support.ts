import { renderMarkdown, type LinkTarget, type RenderOptions, type RenderResult } from "../../../src/publish/render/index.ts";

/** A small workspace the renderer's tests link into: pages and files that exist, site-style URLs. */
export const PAGES = new Set(["index.md", "welcome.md", "guides/index.md", "guides/intro.md", "guides/setup.md", "reference/api.md"]);
export const FILES = new Set(["img/logo.png", "guides/img/shot.png", "files/report.pdf"]);

export function siteLinks(pagePath: string, published: Set<string> = PAGES): RenderOptions & { targets: LinkTarget[] } {
  const targets: LinkTarget[] = [];
  return {
    pagePath,
    targets,
    pageExists: (p) => published.has(p),
    resolveLink(t) {
      targets.push(t);
      if (t.kind === "page") {
        if (!published.has(t.path)) return null;
        return "/p/docs/" + t.path.replace(/(^|\/)index\.md$/, "$1").replace(/\.md$/, "") + (t.anchor ? `#${t.anchor}` : "");
      }
      return FILES.has(t.path) ? `/p/docs/${t.path}` : null;
    },
  };
}

export function render(markdown: string, pagePath = "guides/intro.md"): RenderResult {
  return renderMarkdown(markdown, siteLinks(pagePath));
}
