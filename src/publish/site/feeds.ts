/**
 * The site's files for machines: sitemap.xml, robots.txt, rss.xml, llms.txt, llms-full.txt and
 * manifest.json. Pure functions of the site model and a SiteUrls strategy, so the /p/ site and
 * the static export write the same files. Every user string is escaped for its format.
 */
import { wellFormed } from "../../core/escape.ts";
import { escapeXml as x, markdownInline, safeJson } from "./escape.ts";
import type { SiteModel, SitePage } from "./model.ts";
import type { SiteUrls } from "./urls.ts";

/** llms-full.txt carries at most this many pages (docs/architecture.md §9). */
export const LLMS_FULL_MAX_PAGES = 200;
const RSS_ITEMS = 50;

const abs = (urls: SiteUrls, url: string) => urls.absolute(url) ?? url;

export function sitemapXml(model: SiteModel, urls: SiteUrls): string {
  const entries = model.pages.map((p) => {
    const loc = abs(urls, urls.page(p.path));
    const lastmod = p.updatedAt ? `<lastmod>${x(p.updatedAt.slice(0, 10))}</lastmod>` : "";
    return `<url><loc>${x(loc)}</loc>${lastmod}</url>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries.join("\n")}\n</urlset>\n`;
}

/** A public site invites crawlers and names its sitemap; a members-only site asks them to stay out. */
export function robotsTxt(model: SiteModel, urls: SiteUrls, opts: { public: boolean }): string {
  if (!opts.public) return "User-agent: *\nDisallow: /\n";
  return `User-agent: *\nAllow: /\n\nSitemap: ${abs(urls, urls.file("sitemap.xml"))}\n`;
}

export function rssXml(model: SiteModel, urls: SiteUrls): string {
  const recent = [...model.pages].sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0)).slice(0, RSS_ITEMS);
  const items = recent.map((p) => {
    const link = abs(urls, urls.page(p.path));
    return [
      "<item>",
      `<title>${x(p.title)}</title>`,
      `<link>${x(link)}</link>`,
      `<guid isPermaLink="false">${x(p.id)}</guid>`,
      p.description ? `<description>${x(p.description)}</description>` : "",
      p.updatedAt ? `<pubDate>${x(rfc822(p.updatedAt))}</pubDate>` : "",
      "</item>",
    ].join("");
  });
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">`,
    "<channel>",
    `<title>${x(model.name)}</title>`,
    `<link>${x(abs(urls, urls.home()))}</link>`,
    `<description>${x(model.description || model.name)}</description>`,
    `<atom:link href="${x(abs(urls, urls.file("rss.xml")))}" rel="self" type="application/rss+xml"/>`,
    model.updatedAt ? `<lastBuildDate>${x(rfc822(model.updatedAt))}</lastBuildDate>` : "",
    "<generator>Quire</generator>",
    ...items,
    "</channel>",
    "</rss>",
    "",
  ]
    .filter((l) => l !== "")
    .join("\n") + "\n";
}

function rfc822(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toUTCString();
}

/** Pages grouped by their navigation section (top-level folder), in navigation order. */
function sections(model: SiteModel): Array<{ title: string; pages: SitePage[] }> {
  const out: Array<{ title: string; pages: SitePage[] }> = [];
  const byKey = new Map<string, { title: string; pages: SitePage[] }>();
  const titleOf = new Map<string, string>();
  for (const item of model.nav) {
    if ((item.kind === "section" || item.kind === "page") && item.page) titleOf.set(item.page.rel.split("/")[0]!.replace(/\.md$/, ""), item.title);
  }
  for (const p of model.pages) {
    const slash = p.rel.indexOf("/");
    const key = slash === -1 ? "" : p.rel.slice(0, slash);
    let section = byKey.get(key);
    if (!section) {
      section = { title: key === "" ? "Docs" : (titleOf.get(key) ?? key.replace(/[-_]+/g, " ").replace(/^./, (c) => c.toUpperCase())), pages: [] };
      byKey.set(key, section);
      out.push(section);
    }
    section.pages.push(p);
  }
  return out;
}

/**
 * llms.txt (llmstxt.org): `# name`, a `>` summary, a paragraph naming the site's MCP endpoint where
 * a server answers it (docs/decisions/site-mcp.md), then `## section` lists of
 * `- [title](url.md): description`.
 */
export function llmsTxt(model: SiteModel, urls: SiteUrls): string {
  const lines = [`# ${markdownInline(model.name)}`, ""];
  lines.push(`> ${markdownInline(model.description || `Documentation for ${model.name}.`)}`, "");
  const mcp = urls.mcp();
  if (mcp !== null) {
    const url = abs(urls, mcp);
    // One endpoint per site: a non-default version's file says how to ask for its pages.
    const version = model.version && !model.version.is_default ? ` For this version's pages, pass \`version: "${model.version.slug}"\` to each tool.` : "";
    lines.push(
      `MCP server: [${markdownInline(url)}](${markdownUrl(url)}) (Streamable HTTP, read-only). Tools: \`site_search\`, \`site_read_page\`, \`site_list_pages\`, \`site_get_tree\`, \`site_get_llms_txt\`.${version}`,
      "",
    );
  }
  for (const section of sections(model)) {
    lines.push(`## ${markdownInline(section.title)}`, "");
    for (const p of section.pages) {
      const url = abs(urls, urls.raw(p.path));
      const desc = p.description ? `: ${markdownInline(p.description)}` : "";
      lines.push(`- [${markdownInline(p.title)}](${markdownUrl(url)})${desc}`);
    }
    lines.push("");
  }
  return lines.join("\n");
}

/** llms-full.txt: the same header, then each page's Markdown (at most LLMS_FULL_MAX_PAGES pages). */
export function llmsFullTxt(model: SiteModel, urls: SiteUrls, markdownOf: (page: SitePage) => string | null): string {
  const parts = [`# ${markdownInline(model.name)}`, "", `> ${markdownInline(model.description || `Documentation for ${model.name}.`)}`, ""];
  const pages = model.pages.slice(0, LLMS_FULL_MAX_PAGES);
  for (const p of pages) {
    const md = markdownOf(p);
    if (md === null) continue;
    parts.push("---", "", `Source: ${abs(urls, urls.raw(p.path))}`, "", wellFormed(md).trimEnd(), "");
  }
  if (model.pages.length > pages.length) {
    parts.push("---", "", `${model.pages.length - pages.length} more pages are listed in ${abs(urls, urls.file("llms.txt"))}.`, "");
  }
  return parts.join("\n");
}

/** A URL inside Markdown link parentheses: spaces and parentheses percent-encoded. */
function markdownUrl(url: string): string {
  return wellFormed(url).replace(/[ ()<>]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);
}

export function manifestJson(model: SiteModel, urls: SiteUrls): string {
  const start = urls.home();
  return safeJson(
    {
      name: model.name,
      short_name: model.name.length > 12 ? model.name.slice(0, 12).trimEnd() : model.name,
      description: model.description || undefined,
      start_url: start,
      scope: start,
      display: "standalone",
      background_color: "#ffffff",
      theme_color: THEME_COLORS[model.theme] ?? "#2563eb",
      icons: [{ src: urls.theme("icon.svg"), sizes: "any", type: "image/svg+xml" }],
    },
    2,
  );
}

const THEME_COLORS: Record<string, string> = {
  default: "#2563eb",
  dark: "#111827",
  forest: "#2f6f4e",
  rose: "#be185d",
  amber: "#b45309",
  minimal: "#111111",
  corporate: "#1e3a8a",
};
