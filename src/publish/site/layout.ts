/**
 * The page layout: a full HTML document from the site model, one page, its rendered body and a
 * SiteUrls strategy. The /p/ site, the static export and the preview all call this; only the
 * URLs and a few options differ (mode, nonce, the member's edit link).
 */
import { escapeHtml as h } from "../../core/escape.ts";
import { safeJson } from "./escape.ts";
import { neighbours, type NavItem, type SiteModel, type SitePage } from "./model.ts";
import type { SiteUrls } from "./urls.ts";
import type { RenderResult } from "../render/index.ts";
import { collapsedKey, moreOf } from "./large-nav.ts";

/** What the renderer produced for a page (the parts the layout uses). */
type RenderedBody = Pick<RenderResult, "html" | "headings" | "hasMermaid" | "hasMath" | "hasCode">;

type LayoutMode = "site" | "export" | "preview";

interface LayoutOptions {
  mode: LayoutMode;
  /** CSP nonce for the inline and script tags; omitted in an export (no CSP there). */
  nonce?: string;
  /** "Edit this page" link (members with the edit right, in the app). */
  editUrl?: string | null;
  /** Where the search box asks when `window.quireSearch` is absent; null hides nothing but disables the fallback. */
  searchUrl?: string | null;
  /**
   * A served site asks for analytics consent unless this is false: a members-only site, or an
   * organization whose plan has no analytics (nothing would ever be reported to anyone).
   */
  asksConsent?: boolean;
  /**
   * Show the "Use with your AI assistant" snippet (the site's MCP endpoint with a copy button).
   * A served public site only: an app outside the browser cannot sign in to a members-only site
   * yet (docs/decisions/site-mcp.md), and an export or preview has no endpoint (SiteUrls.mcp).
   */
  offersAssistant?: boolean;
  /**
   * The HTML of navigation entries that neither are nor hold the current page, which is the same
   * for every page whose URLs are relative to the same place: a caller writing many pages (the
   * export) passes one map per folder and the navigation is built once, not once per page.
   */
  navMemo?: NavMemo;
  /**
   * A large site served by `quire serve` (site/large-nav.ts): the navigation file's versioned URL,
   * from which the site's script fills the collapsed sections, and the site map page's URL (the
   * whole tree without a script).
   */
  largeNav?: { file: string; siteMap: string };
}

/**
 * What LayoutOptions.navMemo keeps: the HTML of each navigation entry away from the current page,
 * and of the runs of entries before and after the one on the way to it in each list (found by the
 * list's first entry off that way, which belongs to that list only).
 */
export class NavMemo {
  readonly entries = new Map<NavItem, string>();
  readonly runs = new Map<NavItem, { at: number; length: number; before: string; after: string }>();

  clear(): void {
    this.entries.clear();
    this.runs.clear();
  }
}

const TOC_LEVELS = new Set([2, 3]);
const MAX_TOC_ENTRIES = 100;

/** The document title: "Page · Site" (just the site name on its home page when the titles match). */
function documentTitle(model: SiteModel, page: SitePage): string {
  return page.title === model.name ? model.name : `${page.title} · ${model.name}`;
}

function nonceAttr(options: LayoutOptions): string {
  return options.nonce ? ` nonce="${h(options.nonce)}"` : "";
}

/** Where the site's consent prompt sends the reader's answer (docs/interfaces.md §3; same origin). */
const CONSENT_URL = "/api/analytics/consent";

/**
 * The analytics consent prompt of a served site: hidden until site.js finds no earlier answer in
 * the consent cookie and no opt-out signal (Global Privacy Control, Do Not Track) in the browser.
 * A landmark at the end of the page: it never takes focus nor covers the content on first paint.
 */
const CONSENT_PROMPT = `<section class="consent-prompt" aria-labelledby="consent-prompt-title" hidden>
<p id="consent-prompt-title" class="consent-prompt-title">Count your visit?</p>
<p class="consent-prompt-text">This site counts page views without cookies. May it also count you as a visitor? One cookie keeps your answer; your address and browser are never stored.</p>
<div class="consent-prompt-actions"><button type="button" class="consent-yes" data-consent="granted">Allow</button><button type="button" class="consent-no" data-consent="denied">No, thanks</button></div>
</section>
`;

/**
 * The "Use with your AI assistant" snippet: the site's MCP endpoint as text anyone can select,
 * and a copy button site.js reveals (it does nothing without the script). The button's name is
 * its visible label; the result of a copy is announced by the status line.
 */
function assistantSnippet(model: SiteModel, endpoint: string): string {
  const version = model.version && !model.version.is_default ? ` Its tools read the site's main version unless asked for <code>${h(model.version.slug)}</code>.` : "";
  return `<section class="assistant-snippet" aria-labelledby="assistant-snippet-title">
<h2 id="assistant-snippet-title" class="assistant-snippet-title">Use with your AI assistant</h2>
<p class="assistant-snippet-text">Add this address to your AI assistant as an MCP server (a remote connector): it can then search and read these pages. No sign-in needed.${version}</p>
<div class="assistant-snippet-row"><code class="assistant-snippet-url">${h(endpoint)}</code><button type="button" class="copy-mcp-url" data-copy="${h(endpoint)}" hidden>Copy URL</button></div>
<p class="assistant-snippet-status" role="status"></p>
</section>
`;
}

/** Runs before first paint: the reader's explicit light/dark choice (the system's otherwise). */
export const MODE_SCRIPT = `try{var m=localStorage.getItem("quire-site-mode");if(m==="light"||m==="dark")document.documentElement.dataset.mode=m}catch(e){}`;

export function renderLayout(model: SiteModel, page: SitePage, body: RenderedBody, urls: SiteUrls, options: LayoutOptions): string {
  const title = documentTitle(model, page);
  const description = page.description || model.description;
  const pageUrl = urls.page(page.path);
  const canonical = urls.absolute(pageUrl);
  const { prev, next } = neighbours(model, page);
  const hasH1 = body.headings.some((x) => x.depth === 1);
  const nonce = nonceAttr(options);
  // The site's MCP endpoint, named in the head for agents (docs/decisions/site-mcp.md: rel="mcp").
  const mcpPath = options.mode === "site" ? urls.mcp() : null;
  const mcpUrl = mcpPath === null ? null : (urls.absolute(mcpPath) ?? mcpPath);
  const siteScript = urls.theme("site.js");
  // Only a site served by `quire serve` counts visitors, so only there is the reader asked
  // (same origin: on a custom domain the answer and its cookie are the domain's), and only
  // where the figures are reported (see LayoutOptions.asksConsent).
  const asksConsent = options.mode === "site" && options.asksConsent !== false;
  const config = {
    search: options.searchUrl ?? null,
    mermaid: body.hasMermaid ? urls.theme("mermaid.js") : null,
    consent: asksConsent ? { url: CONSENT_URL, workspace: model.workspace.id } : null,
  };
  const head = [
    `<meta charset="utf-8">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<title>${h(title)}</title>`,
    description ? `<meta name="description" content="${h(description)}">` : "",
    `<meta name="color-scheme" content="light dark">`,
    `<meta name="generator" content="Quire">`,
    canonical ? `<link rel="canonical" href="${h(canonical)}">` : "",
    `<meta property="og:type" content="${page.route === "" ? "website" : "article"}">`,
    `<meta property="og:site_name" content="${h(model.name)}">`,
    `<meta property="og:title" content="${h(page.title)}">`,
    description ? `<meta property="og:description" content="${h(description)}">` : "",
    canonical ? `<meta property="og:url" content="${h(canonical)}">` : "",
    page.updatedAt ? `<meta property="article:modified_time" content="${h(page.updatedAt)}">` : "",
    `<meta name="twitter:card" content="summary">`,
    `<meta name="twitter:title" content="${h(page.title)}">`,
    description ? `<meta name="twitter:description" content="${h(description)}">` : "",
    `<link rel="stylesheet" href="${h(urls.theme("site.css"))}">`,
    `<link rel="stylesheet" href="${h(urls.theme(`theme-${model.theme}.css`))}">`,
    body.hasMath ? `<link rel="stylesheet" href="${h(urls.theme("katex.min.css"))}">` : "",
    `<link rel="alternate" type="text/markdown" href="${h(urls.raw(page.path))}">`,
    options.mode === "export" ? "" : `<link rel="alternate" type="application/rss+xml" title="${h(model.name)}" href="${h(urls.file("rss.xml"))}">`,
    options.mode === "export" ? "" : `<link rel="manifest" href="${h(urls.file("manifest.json"))}">`,
    mcpUrl ? `<link rel="mcp" href="${h(mcpUrl)}" title="MCP server (read-only)">` : "",
    `<script${nonce}>${MODE_SCRIPT}</script>`,
    `<script${nonce} id="quire-site-config" type="application/json">${safeJson(config)}</script>`,
    `<script${nonce} src="${h(siteScript)}" defer></script>`,
  ]
    .filter(Boolean)
    .join("\n");

  const toc = body.headings.filter((x) => TOC_LEVELS.has(x.depth)).slice(0, MAX_TOC_ENTRIES);
  const tocHtml =
    toc.length > 1
      ? `<aside class="page-toc" aria-label="On this page"><p class="page-toc-title">On this page</p><ul>${toc
          .map((x) => `<li class="page-toc-l${x.depth}"><a href="#${h(encodeURIComponent(x.id))}">${h(x.text)}</a></li>`)
          .join("")}</ul></aside>`
      : `<aside class="page-toc page-toc-empty" aria-hidden="true"></aside>`;

  // Without a default version the root shows the current docs, offered as "Latest".
  const hasDefault = model.versions.some((v) => v.is_default);
  const choices = hasDefault ? model.versions : [{ slug: "", name: "Latest", is_default: true }, ...model.versions];
  const currentSlug = model.version?.slug ?? "";
  const versionSwitcher =
    choices.length > 1
      ? `<details class="version-switcher"><summary aria-label="Version">${h(model.version?.name ?? "Latest")}</summary><ul>${choices
          .map(
            (v) =>
              `<li><a href="${h(urls.version(v.slug))}"${v.slug === currentSlug ? ` aria-current="true"` : ""}>${h(v.name)}${v.is_default ? ` <span class="tag">latest</span>` : ""}</a></li>`,
          )
          .join("")}</ul></details>`
      : "";

  const updated = page.updatedAt
    ? `<p class="last-updated">Last updated <time datetime="${h(page.updatedAt)}">${h(formatDate(page.updatedAt))}</time>${
        page.updatedBy ? ` by ${h(page.updatedBy)}` : ""
      }</p>`
    : "";
  const edit = options.editUrl ? `<a class="edit-link" href="${h(options.editUrl)}">Edit this page</a>` : "";
  const pager =
    prev || next
      ? `<nav class="pager" aria-label="Previous and next">${
          prev ? `<a class="pager-prev" rel="prev" href="${h(urls.page(prev.path))}"><span>Previous</span>${h(prev.title)}</a>` : "<span></span>"
        }${next ? `<a class="pager-next" rel="next" href="${h(urls.page(next.path))}"><span>Next</span>${h(next.title)}</a>` : ""}</nav>`
      : "";

  return `<!doctype html>
<html lang="en" data-theme="${h(model.theme)}">
<head>
${head}
</head>
<body>
<a class="skip-link" href="#content">Skip to content</a>
<header class="site-header">
<button type="button" class="nav-toggle" aria-controls="sidebar" aria-expanded="false" aria-label="Menu"><span></span></button>
<a class="site-name" href="${h(urls.home())}">${h(model.name)}</a>
${versionSwitcher}
<div class="header-actions">
<button type="button" class="search-open" aria-haspopup="dialog" aria-keyshortcuts="Control+K"><span class="search-icon" aria-hidden="true"></span><span class="search-label">Search</span><kbd>Ctrl K</kbd></button>
<button type="button" class="mode-toggle" aria-label="Switch between light and dark"><span aria-hidden="true"></span></button>
</div>
</header>
<div class="site-body">
<nav id="sidebar" class="sidebar" aria-label="Site navigation"${options.largeNav ? ` data-nav-file="${h(options.largeNav.file)}"` : ""}>
${renderNav(model.nav, page, urls, options.navMemo, options.largeNav?.siteMap)}${options.largeNav ? `\n<p class="nav-site-map"><a href="${h(options.largeNav.siteMap)}">All pages</a></p>` : ""}
</nav>
<main id="content" class="content">
<article class="page">
${hasH1 ? "" : `<h1 class="page-title">${h(page.title)}</h1>\n`}${body.html}
</article>
<footer class="page-footer">${updated}${edit}</footer>
${pager}
</main>
${tocHtml}
</div>
<footer class="site-footer">${mcpUrl && options.offersAssistant ? assistantSnippet(model, mcpUrl) : ""}<p>${h(model.name)} · Published with Quire</p></footer>
${asksConsent ? CONSENT_PROMPT : ""}</body>
</html>
`;
}

/** `siteMap`: a large served site's site map, where the entries a page leaves out are (site/large-nav.ts). */
function renderNav(items: NavItem[], current: SitePage, urls: SiteUrls, memo?: NavMemo, siteMap?: string): string {
  const keyed = siteMap !== undefined;
  // The entries on the way to the current page, found once (not by searching each entry's subtree).
  const trail = new Set<NavItem>();
  findTrail(items, current, trail);
  const li = (item: NavItem): string => {
    if (memo && !trail.has(item)) {
      let html = memo.entries.get(item);
      if (html === undefined) memo.entries.set(item, (html = entry(item)));
      return html;
    }
    return entry(item);
  };
  const entry = (item: NavItem): string => {
    switch (item.kind) {
      case "heading": {
        // A run of a long list left out of the page: the site's script puts it back from the
        // navigation file; without it the link leads to the site map.
        const left = keyed ? moreOf(item) : undefined;
        if (left) return `<li class="nav-more" data-nav-more="${left.list}:${left.from}:${left.to}"><a class="nav-link" href="${h(siteMap!)}">${left.to - left.from} more pages</a></li>`;
        return `<li class="nav-heading">${h(item.title)}</li>`;
      }
      case "link":
        return `<li><a class="nav-link nav-external" href="${h(item.url)}" rel="noopener">${h(item.title)}</a></li>`;
      case "page":
      case "section": {
        const isCurrent = item.page?.path === current.path;
        const label = item.page
          ? `<a class="nav-link" href="${h(urls.page(item.page.path))}"${isCurrent ? ` aria-current="page"` : ""}>${h(item.title)}</a>`
          : `<span class="nav-section">${h(item.title)}</span>`;
        if (item.children.length === 0) {
          // A section collapsed to one link names its place in the navigation file (site.js opens it from there).
          const key = keyed ? collapsedKey(item) : undefined;
          return key === undefined ? `<li>${label}</li>` : `<li data-nav-key="${key}">${label}</li>`;
        }
        const open = trail.has(item) ? " open" : "";
        // A section's own page is a link beside its toggle, never inside it: a link within a
        // <summary> is a control inside a control, which screen readers announce badly.
        if (item.page) return `<li class="nav-branch">${label}<details${open}><summary><span class="nav-toggle-text">Pages under ${h(item.title)}</span></summary>${list(item.children)}</details></li>`;
        return `<li><details${open}><summary>${label}</summary>${list(item.children)}</details></li>`;
      }
    }
  };
  const list = (entries: NavItem[]): string => {
    if (entries.length === 0) return "";
    if (!memo || entries.length < 4) return `<ul>${entries.map(li).join("")}</ul>`;
    // Only the entry on the way to the current page differs from page to page of a folder.
    let at = -1;
    for (let i = 0; i < entries.length; i++) {
      if (!trail.has(entries[i]!)) continue;
      if (at !== -1) return `<ul>${entries.map(li).join("")}</ul>`; // the page is listed twice here: no shortcut
      at = i;
    }
    const key = entries[at === 0 ? 1 : 0]!;
    let run = memo.runs.get(key);
    if (!run || run.at !== at || run.length !== entries.length) {
      const before = at === -1 ? entries : entries.slice(0, at);
      run = { at, length: entries.length, before: before.map(li).join(""), after: at === -1 ? "" : entries.slice(at + 1).map(li).join("") };
      memo.runs.set(key, run);
    }
    return at === -1 ? `<ul>${run.before}</ul>` : `<ul>${run.before}${entry(entries[at]!)}${run.after}</ul>`;
  };
  return list(items);
}

/** Adds to `trail` every entry that is the page or holds it; whether `items` hold it. */
function findTrail(items: NavItem[], page: SitePage, trail: Set<NavItem>): boolean {
  let found = false;
  for (const i of items) {
    if (i.kind !== "page" && i.kind !== "section") continue;
    if (i.page?.path === page.path || findTrail(i.children, page, trail)) {
      trail.add(i);
      found = true;
    }
  }
  return found;
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];

/** "26 November 2026", as en-GB's long date in UTC; built by hand because Intl costs ~0.3 ms a call, per page of an export. */
function formatDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const year = d.getUTCFullYear();
  if (year < 1000 || year > 9999) return d.toLocaleDateString("en-GB", { year: "numeric", month: "long", day: "numeric", timeZone: "UTC" });
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${year}`;
}

/** The body of a 404 page inside the site's layout is deliberately not used: a missing page and a hidden one must look alike. */
export const NOT_FOUND_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Not found</title></head>
<body><h1>Not found</h1><p>There is no page at this address.</p></body></html>
`;
