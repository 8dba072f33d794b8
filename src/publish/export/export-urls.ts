import type { SiteModel, SitePage } from "../site/model.ts";
import { anchorSuffix, type SiteUrls } from "../site/urls.ts";
import { htmlPathOf, relativeHref } from "./paths.ts";

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

export function exportUrls(model: SiteModel, models: SiteModel[], fromFile: string, baseUrl: string | null): SiteUrls {
  const prefix = versionPrefix(model);
  const to = (zipPath: string) => relativeHref(fromFile, zipPath);
  return {
    page(path, anchor) {
      const page = model.byPath.get(path);
      return to(page ? zipPathOfPage(model, page) : prefix + htmlPathOf(path)) + anchorSuffix(anchor);
    },
    raw(path) {
      const page = model.byPath.get(path);
      return to(prefix + (page ? page.rel : path));
    },
    asset: (workspacePath) => to(workspacePath.replace(/^\/+/, "")),
    theme: (file) => to(`_quire/${file}`),
    home: () => to(`${prefix}index.html`),
    file: (name) => to(prefix + name),
    version(slug) {
      const other = models.find((m) => m.version?.slug === slug);
      return to((other ? versionPrefix(other) : "") + "index.html");
    },
    absolute: (url) => (baseUrl ? new URL(url, new URL(fromFile, baseUrl)).href : null),
  };
}
