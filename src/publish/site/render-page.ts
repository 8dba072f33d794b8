/**
 * A site page's rendered body: the renderer with link resolution against the site model (only
 * published pages of the same version resolve; anything else renders as a visibly broken link,
 * so a link never reveals an unpublished page). Results live in the renderer's cache, keyed by
 * the page's content hash and a link context: the URL strategy plus the set of published pages
 * (publish.yaml can change it without a ledger event); the cache drops a workspace's renders on
 * every ledger change in it.
 */
import type { RenderOptions, RenderResult } from "../render/index.ts";
import type { RenderCache } from "../render/cache.ts";
import type { SiteModel, SitePage } from "./model.ts";
import type { SiteUrls } from "./urls.ts";

/** What decides how links resolve: the published pages and their routes. */
function linkSignature(model: SiteModel): string {
  const hasher = new Bun.CryptoHasher("sha1");
  hasher.update(model.version?.slug ?? "");
  for (const p of model.byPath.values()) hasher.update(`${p.path}\u0000${p.route}\u0001`);
  return hasher.digest("hex");
}

const signatures = new WeakMap<SiteModel, string>();

export function renderSitePage(
  cache: RenderCache,
  model: SiteModel,
  page: SitePage,
  markdown: string,
  urls: SiteUrls,
  urlsKey: string,
  /** How embeds show ("link" in an export, which fetches nothing from another origin); part of `urlsKey`'s context. */
  embeds?: RenderOptions["embeds"],
): RenderResult {
  let sig = signatures.get(model);
  if (sig === undefined) signatures.set(model, (sig = linkSignature(model)));
  return cache.render(
    markdown,
    {
      pagePath: page.path,
      embeds,
      pageExists: (path) => model.byPath.has(path),
      resolveLink: (target) => {
        if (target.kind === "page") return model.byPath.has(target.path) ? urls.page(target.path, target.anchor) : null;
        // A link written without `.md` (`guides/intro`) still names the page.
        if (model.byPath.has(`${target.path}.md`)) return urls.page(`${target.path}.md`, target.anchor);
        if (target.path.startsWith("assets/")) return urls.asset(target.path);
        // Images the editor inserted point at the uploads API; on the site they are the site's own files.
        const upload = /^api\/v1\/content\/[^/]+\/uploads\/([^/]+)$/.exec(target.path);
        return upload ? urls.asset(`assets/${upload[1]}`) : null;
      },
    },
    { scope: model.workspace.id, linkContext: `site|${urlsKey}|${sig}`, contentHash: page.contentHash },
  );
}
