import { NotFoundError, ValidationError } from "../../core/errors.ts";
import type { Principal } from "../../core/principal.ts";
import type { SearchService } from "../../search/search-service.ts";
import type { SiteService } from "../site-service.ts";
import type { NavItem, SiteModel, SitePage } from "../site/model.ts";
import { llmsTxt } from "../site/feeds.ts";
import { servedSiteUrls } from "../site/urls.ts";

/** What a reader's assistant may ask of one published site; the answers are the site's own. */
interface SiteReading {
  name: string;
  listPages(): Array<{ path: string; title: string; description: string; url: string }>;
  tree(): TreeItem[];
  readPage(path: string, offset: number, maxChars: number): { path: string; title: string; url: string; markdown: string; total_chars: number; next_offset: number | null };
  search(q: string, limit: number): Array<{ path: string; title: string; url: string; snippet: string }>;
  llmsTxt(): string;
}

type TreeItem = { title: string; path?: string; url?: string; children?: TreeItem[] };

/**
 * Where the reader reached the site, for the URLs the answers give: `/p/{slug}` on the instance's
 * address (the default), or the root of a verified custom domain (`prefix` "", `origin` https://domain).
 */
export interface SitePlace {
  prefix: string;
  origin: string;
}

/**
 * The published site as its MCP tools see it (docs/decisions/site-mcp.md): the same site model the
 * pages are rendered from (SiteService.model), so "what the site shows" is one rule — published
 * pages of that site and version, behind the same visibility check as a page view. A site that
 * does not exist, is not published, or is members-only for a reader who is not a member is one
 * answer: not found, saying nothing about which.
 */
export class SiteReader {
  constructor(private readonly deps: { site: SiteService; search: SearchService; baseUrl: string }) {}

  open(slug: string, principal: Principal | null, version?: string, place?: SitePlace): SiteReading {
    const { site } = this.deps;
    const ws = /^[a-z0-9-]{1,64}$/.test(slug) ? site.workspaceForSlug(slug) : null;
    if (!ws || ws.published !== 1) throw new NotFoundError("Site not found");
    if (site.effectiveVisibility(ws) === "authenticated" && site.roleOf(principal, ws) === null) throw new NotFoundError("Site not found");
    let model = site.model(ws);
    if (model && version !== undefined) {
      if (!model.versions.some((v) => v.slug === version)) throw new NotFoundError(`Version not found: ${version}`);
      model = site.model(ws, version);
    }
    if (!model) throw new NotFoundError("Site not found");
    return this.reading(model, place ?? { prefix: `/p/${encodeURIComponent(ws.slug)}`, origin: this.deps.baseUrl.replace(/\/+$/, "") }, ws.id);
  }

  private reading(model: SiteModel, place: SitePlace, workspaceId: string): SiteReading {
    const urls = servedSiteUrls(model, { prefix: place.prefix, origin: place.origin, assetVersion: "" });
    const url = (p: SitePage) => abs(place.origin, urls.page(p.path));
    const pageOf = (path: string): SitePage => {
      const clean = path.trim().replace(/^\/+/, "").replace(/\.md$/i, "");
      if (clean.split("/").some((s) => s === ".." || s === ".")) throw new ValidationError("path: must not contain . or .. segments", "path");
      const page = clean === "" ? model.home : (model.byRoute.get(clean) ?? model.byRoute.get(clean.replace(/\/index$/, "")));
      if (!page) throw new NotFoundError(`Page not found on this site: ${path}`);
      return page;
    };
    const tree = (items: NavItem[]): TreeItem[] =>
      items.flatMap((n): TreeItem[] => {
        if (n.kind === "heading") return [{ title: n.title }];
        if (n.kind === "link") return [{ title: n.title, url: n.url }];
        const kids = tree(n.children);
        return [{ title: n.title, ...(n.page ? { path: n.page.rel, url: url(n.page) } : {}), ...(kids.length ? { children: kids } : {}) }];
      });
    return {
      name: model.name,
      listPages: () => model.pages.map((p) => ({ path: p.rel, title: p.title, description: p.description, url: url(p) })),
      tree: () => tree(model.nav),
      readPage: (path, offset, maxChars) => {
        const page = pageOf(path);
        const markdown = this.deps.site.pageMarkdown(workspaceId, page.path);
        if (markdown === null) throw new NotFoundError(`Page not found on this site: ${path}`);
        const part = markdown.slice(offset, offset + maxChars);
        const end = offset + part.length;
        return { path: page.rel, title: page.title, url: url(page), markdown: part, total_chars: markdown.length, next_offset: end < markdown.length ? end : null };
      },
      search: (q, limit) => {
        const items: Array<{ path: string; title: string; url: string; snippet: string }> = [];
        if (q.trim() === "") return items;
        // Unpublished pages share the workspace's index: ask for more, keep this version's published ones.
        for (const hit of this.deps.search.searchWorkspace(workspaceId, q, Math.min(200, limit * 5 + 20))) {
          const page = model.byPath.get(hit.path);
          if (!page) continue;
          items.push({ path: page.rel, title: page.title, url: url(page), snippet: hit.snippet });
          if (items.length >= limit) break;
        }
        return items;
      },
      llmsTxt: () => llmsTxt(model, urls),
    };
  }
}

function abs(base: string, url: string): string {
  return /^https?:\/\//.test(url) ? url : `${base.replace(/\/+$/, "")}${url}`;
}
