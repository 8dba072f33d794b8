import type { SiteModel, SitePage } from "../site/model.ts";
import { anchorSuffix, type SiteUrls } from "../site/urls.ts";
import { htmlPathOf } from "./paths.ts";

/**
 * The export's SiteUrls strategy: every URL relative to the exported file being written and naming
 * a file (`../guides/intro.html`, `_quire/site.css`), so the site works from file://, from a
 * sub-path and from any static host. Absolute URLs (canonical links, the sitemap) exist only when a
 * base URL is given.
 */

/** The folder of a version inside the ZIP: "" for the default (or the unversioned site), `{slug}/` otherwise. */
export function versionPrefix(model: SiteModel): string {
  return model.version && !model.version.is_default ? `${model.version.slug}/` : "";
}

export function zipPathOfPage(model: SiteModel, page: SitePage): string {
  return versionPrefix(model) + htmlPathOf(page.rel);
}

/**
 * Relative hrefs from one folder of the ZIP. Every page carries the whole navigation, so a
 * 1,000-page site asks for a million of these: they are computed by comparing path segments (not
 * with path.relative) and remembered for the folder, which the exporter visits page after page.
 */
export class HrefCache {
  private dir = "";
  private fromParts: string[] = [];
  private readonly memo = new Map<string, string>();

  /** Pages by their workspace path (the model's own strings, so lookups skip building the ZIP path). */
  private readonly pages = new Map<string, string>();

  private enter(fromFile: string): void {
    const cut = fromFile.lastIndexOf("/");
    const dir = cut < 0 ? "" : fromFile.slice(0, cut);
    if (dir !== this.dir || this.memo.size > 50_000 || this.pages.size > 50_000) {
      this.dir = dir;
      this.fromParts = dir === "" ? [] : dir.split("/");
      this.memo.clear();
      this.pages.clear();
    }
  }

  pageHref(fromFile: string, pagePath: string, zipPath: () => string): string {
    this.enter(fromFile);
    let href = this.pages.get(pagePath);
    if (href === undefined) {
      href = this.href(fromFile, zipPath());
      this.pages.set(pagePath, href);
    }
    return href;
  }

  href(fromFile: string, to: string): string {
    this.enter(fromFile);
    let href = this.memo.get(to);
    if (href === undefined) {
      const parts = to.split("/");
      let i = 0;
      while (i < this.fromParts.length && i < parts.length - 1 && this.fromParts[i] === parts[i]) i++;
      href = "../".repeat(this.fromParts.length - i) + parts.slice(i).map(encodeURIComponent).join("/");
      this.memo.set(to, href);
    }
    return href;
  }
}

export function exportUrls(
  model: SiteModel,
  models: SiteModel[],
  fromFile: string,
  baseUrl: string | null,
  cache = new HrefCache(),
  /** Told of every upload a page links to (the exporter copies those, and only those). */
  onAsset: (workspacePath: string) => void = () => {},
): SiteUrls {
  const prefix = versionPrefix(model);
  const to = (zipPath: string) => cache.href(fromFile, zipPath);
  return {
    page(path, anchor) {
      const href = cache.pageHref(fromFile, path, () => {
        const page = model.byPath.get(path);
        return page ? zipPathOfPage(model, page) : prefix + htmlPathOf(path);
      });
      return anchor ? href + anchorSuffix(anchor) : href;
    },
    raw(path) {
      const page = model.byPath.get(path);
      return to(prefix + (page ? page.rel : path));
    },
    asset(workspacePath) {
      const path = workspacePath.replace(/^\/+/, "");
      onAsset(path);
      return to(path);
    },
    theme: (file) => to(`_quire/${file}`),
    home: () => to(`${prefix}index.html`),
    file: (name) => to(prefix + name),
    version(slug) {
      const other = models.find((m) => m.version?.slug === slug);
      return to((other ? versionPrefix(other) : "") + "index.html");
    },
    // A folder of files has no server behind it to answer MCP.
    mcp: () => null,
    absolute: (url) => (baseUrl ? new URL(url, new URL(fromFile, baseUrl)).href : null),
  };
}
