/**
 * The site model: everything a published site (the /p/ site, the static export, the preview)
 * needs to know about a workspace's site, built from the ledger's page records, the workspace's
 * settings and the `.quire/` manifests. Pure: the caller gathers the inputs (see
 * `SiteService.model`), this file decides which pages are on the site, their routes, the
 * navigation, the order for previous/next and the redirects.
 *
 * Routes: a page's route is its path relative to its version's root, without `.md`; a folder's
 * `index.md` has the folder's route and the root `index.md` the empty route.
 */
import type { PageRow } from "../../content/page-records.ts";
import { buildTree, type TreeNode } from "../../content/tree.ts";
import type { z } from "zod";
import type { versionOutput } from "../schemas.ts";
import type { Theme, Visibility } from "../../workspaces/workspace-schemas.ts";
import type { Manifests, NavSpec } from "./manifests.ts";
import { redirectKey } from "./manifests.ts";

/** A version as answered and used by the site: the documented output schema's type. */
export type SiteVersion = z.infer<typeof versionOutput>;

export interface SitePage {
  id: string;
  /** Workspace path, e.g. `versions/v1/guides/intro.md`. */
  path: string;
  /** Path relative to the version's root, e.g. `guides/intro.md`. */
  rel: string;
  /** `guides/intro`; `` for the root index. */
  route: string;
  title: string;
  description: string;
  tags: string[];
  updatedAt: string;
  createdAt: string;
  updatedBy: string | null;
  contentHash: string;
}

export type NavItem =
  | { kind: "page"; title: string; page: SitePage; children: NavItem[] }
  | { kind: "section"; title: string; page: SitePage | null; children: NavItem[] }
  | { kind: "heading"; title: string }
  | { kind: "link"; title: string; url: string };

export interface SiteModel {
  workspace: { id: string; slug: string; orgId: string };
  name: string;
  description: string;
  theme: Theme;
  visibility: Visibility;
  /** Every version of the site (empty: the site is unversioned). */
  versions: SiteVersion[];
  /** The version this model shows; null when the site has no versions. */
  version: SiteVersion | null;
  /** Published pages of this version, in navigation order. */
  pages: SitePage[];
  byRoute: Map<string, SitePage>;
  byPath: Map<string, SitePage>;
  nav: NavItem[];
  /** The page at the site's root: the root index.md, else the first page of the navigation. */
  home: SitePage | null;
  /** Redirects (keys: workspace paths without `.md`) from redirects.yaml and page moves. */
  redirects: Map<string, string>;
  /** Manifest problems (logged, shown to admins), never fatal. */
  problems: string[];
  /** The newest page update on this site (feeds, sitemap). */
  updatedAt: string;
}

export interface SiteModelInput {
  workspace: { id: string; slug: string; org_id: string; name: string; description: string };
  theme: Theme;
  visibility: Visibility;
  rows: PageRow[];
  manifests: Manifests;
  versions: SiteVersion[];
  /** Redirects recorded by page moves (workspace paths without `.md`); redirects.yaml wins over them. */
  movedRedirects: Map<string, string>;
}

const parseTags = (json: string): string[] => {
  try {
    const v = JSON.parse(json);
    return Array.isArray(v) ? v.filter((t): t is string => typeof t === "string") : [];
  } catch {
    return [];
  }
};

/** `guides/index.md` → `guides`; `index.md` → ``; `a/b.md` → `a/b`. */
function routeOf(rel: string): string {
  const bare = rel.replace(/\.md$/i, "");
  if (bare === "index") return "";
  return bare.endsWith("/index") ? bare.slice(0, -"/index".length) : bare;
}

/** Whether a page is on the site: publish.yaml's entry when it has one, else the frontmatter. */
export function isPublished(row: Pick<PageRow, "path" | "publish">, manifests: Pick<Manifests, "publish">): boolean {
  return manifests.publish?.get(row.path) ?? row.publish === 1;
}

/** Which version a workspace path belongs to; null when it is outside every version's base path. */
function versionOfPath(path: string, versions: SiteVersion[]): SiteVersion | null {
  let best: SiteVersion | null = null;
  for (const v of versions) {
    if (path.startsWith(`${v.base_path}/`) && (!best || v.base_path.length > best.base_path.length)) best = v;
  }
  return best;
}

/**
 * The versions readers can pick: those with at least one published page (a version whose
 * base_path holds nothing is kept in the records but not offered). The default comes first.
 */
function liveVersions(input: Pick<SiteModelInput, "rows" | "manifests" | "versions">): SiteVersion[] {
  const withPages = new Set<string>();
  for (const row of input.rows) {
    if (!isPublished(row, input.manifests)) continue;
    const v = versionOfPath(row.path, input.versions);
    if (v) withPages.add(v.slug);
  }
  return input.versions.filter((v) => v.is_default || withPages.has(v.slug)).sort((a, b) => Number(b.is_default) - Number(a.is_default));
}

/**
 * Builds the model of one version. `versionSlug`: a version's slug; undefined → the default
 * version, or the current docs when no version is the default; null → the current docs.
 * Returns null when that version does not exist.
 *
 * The current docs are the pages outside every version's base path. A version's pages are those
 * under its base path. The default version (served at the site's root) also shows the current
 * pages whose address its own pages do not take (pages shared by the whole site: an about page,
 * a changelog).
 */
export function buildSiteModel(input: SiteModelInput, versionSlug?: string | null): SiteModel | null {
  const { workspace, manifests } = input;
  const version =
    versionSlug === null
      ? null
      : versionSlug === undefined
        ? (input.versions.find((v) => v.is_default) ?? null)
        : (input.versions.find((v) => v.slug === versionSlug) ?? null);
  if (typeof versionSlug === "string" && !version) return null;

  const own: SitePage[] = [];
  const shared: SitePage[] = [];
  for (const row of input.rows) {
    if (!isPublished(row, manifests)) continue;
    const owner = versionOfPath(row.path, input.versions);
    let rel: string;
    if (owner) {
      if (owner !== version) continue;
      rel = row.path.slice(owner.base_path.length + 1);
    } else {
      if (version && !version.is_default) continue;
      rel = row.path;
    }
    (owner ? own : version ? shared : own).push({
      id: row.id,
      path: row.path,
      rel,
      route: routeOf(rel),
      title: row.title,
      description: row.description,
      tags: parseTags(row.tags),
      updatedAt: row.updated_at,
      createdAt: row.created_at,
      updatedBy: row.updated_by_name,
      contentHash: row.content_hash,
    });
  }
  const taken = new Set(own.map((p) => p.route));
  const pages = [...own, ...shared.filter((p) => !taken.has(p.route))];
  const byRoute = new Map<string, SitePage>();
  for (const p of pages) if (!byRoute.has(p.route)) byRoute.set(p.route, p);
  const byPath = new Map(pages.map((p) => [p.path, p]));

  const navSpec = manifests.nav;
  const nav = navSpec ? navFromSpec(navSpec, byPath) : navFromTree(input.rows, byPath);
  const order: SitePage[] = [];
  const seen = new Set<string>();
  const walk = (items: NavItem[]) => {
    for (const item of items) {
      if ((item.kind === "page" || item.kind === "section") && item.page && !seen.has(item.page.path)) {
        seen.add(item.page.path);
        order.push(item.page);
      }
      if (item.kind === "page" || item.kind === "section") walk(item.children);
    }
  };
  walk(nav);
  // Pages a nav.yaml leaves out stay reachable (and listed in feeds), after the navigation's.
  for (const p of [...byPath.values()].sort((a, b) => a.path.localeCompare(b.path))) {
    if (!seen.has(p.path)) order.push(p);
  }
  const ordered = order;

  const redirects = new Map(input.movedRedirects);
  for (const [from, to] of manifests.redirects) redirects.set(from, to);

  return {
    workspace: { id: workspace.id, slug: workspace.slug, orgId: workspace.org_id },
    name: workspace.name,
    description: workspace.description,
    theme: input.theme,
    visibility: input.visibility,
    versions: liveVersions(input),
    version,
    pages: ordered,
    byRoute,
    byPath,
    nav,
    home: byRoute.get("") ?? ordered[0] ?? null,
    redirects,
    problems: manifests.problems,
    updatedAt: ordered.reduce((max, p) => (p.updatedAt > max ? p.updatedAt : max), ""),
  };
}

function navFromSpec(spec: NavSpec[], byPath: Map<string, SitePage>): NavItem[] {
  const out: NavItem[] = [];
  for (const node of spec) {
    if (node.kind === "file") {
      const page = byPath.get(node.path) ?? findRel(byPath, node.path);
      if (page) out.push({ kind: "page", title: node.title ?? page.title, page, children: [] });
    } else if (node.kind === "section") {
      const page = node.path ? (byPath.get(node.path) ?? findRel(byPath, node.path) ?? null) : null;
      const children = navFromSpec(node.children, byPath);
      if (page || children.length > 0) out.push({ kind: "section", title: node.title, page, children });
    } else {
      out.push(node);
    }
  }
  return out;
}

/** A nav.yaml written for the unversioned site names `guides/a.md`; inside a version that is `{base}/guides/a.md`. */
function findRel(byPath: Map<string, SitePage>, rel: string): SitePage | undefined {
  for (const p of byPath.values()) if (p.rel === rel) return p;
  return undefined;
}

function navFromTree(rows: PageRow[], byPath: Map<string, SitePage>): NavItem[] {
  // The tree of this version's pages, by their paths relative to the version's root.
  const relRows = rows.flatMap((r) => {
    const page = byPath.get(r.path);
    return page ? [{ ...r, path: page.rel }] : [];
  });
  const relToPage = new Map([...byPath.values()].map((p) => [p.rel, p]));
  const convert = (nodes: TreeNode[]): NavItem[] =>
    nodes.flatMap((n): NavItem[] => {
      if (n.type === "page") {
        const page = relToPage.get(n.path);
        return page ? [{ kind: "page", title: page.title, page, children: [] }] : [];
      }
      const page = relToPage.get(`${n.path}/index.md`) ?? null;
      const children = convert(n.children ?? []);
      if (!page && children.length === 0) return [];
      return [{ kind: "section", title: page?.title ?? n.title, page, children }];
    });
  return convert(buildTree(relRows));
}

/**
 * Follows redirects from a workspace path key (without `.md`) to a page of the model, or to an
 * absolute URL. Chains are followed up to 10 hops; a loop or a dead end resolves to null.
 */
export function resolveRedirect(model: SiteModel, key: string): { page: SitePage } | { url: string } | null {
  let current = redirectKey(key);
  const visited = new Set<string>();
  for (let hop = 0; hop < 10; hop++) {
    if (visited.has(current)) return null;
    visited.add(current);
    const next = model.redirects.get(current);
    if (next === undefined) return null;
    if (/^https?:\/\//i.test(next)) return { url: next };
    const page = model.byPath.get(`${next}.md`) ?? model.byPath.get(`${next}/index.md`);
    if (page) return { page };
    current = next;
  }
  return null;
}

/** Previous and next pages in navigation order. */
export function neighbours(model: SiteModel, page: SitePage): { prev: SitePage | null; next: SitePage | null } {
  const i = model.pages.indexOf(page);
  if (i === -1) return { prev: null, next: null };
  return { prev: model.pages[i - 1] ?? null, next: model.pages[i + 1] ?? null };
}
