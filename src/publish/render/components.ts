import type { Parser, Token } from "marked";
import { classifyHref, classifyWikiTarget } from "./links.ts";
import { fromClassified, hrefFor } from "./resolve.ts";
import type { DirectiveErrorToken, DirectiveToken, InlineDirectiveToken } from "./directives.ts";
import { embedFor } from "./embed.ts";
import { escapeHtml } from "../../core/escape.ts";
import { renderMath } from "./math.ts";
import { current, notice, trust } from "./state.ts";

/**
 * The components of docs/architecture.md §9. Each works without JavaScript (accordion = <details>, tabs =
 * radio inputs and labels styled by the theme), so they work in a static export opened from
 * file:// as well. Chrome the renderer builds (classes, inputs, iframes) is trusted markup; what
 * the author wrote inside a component is rendered Markdown and goes through the sanitizer like
 * the rest of the page. A component written wrong renders a visible notice and keeps its content.
 */
type P = { parser: Parser<string, string> };

const CALLOUTS = ["info", "warning", "danger", "tip", "note"] as const;
const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "CONNECT"]);
export const BADGE_VARIANTS = new Set(["default", "info", "success", "warning", "danger", "tip", "note", "new", "beta", "deprecated"]);
/** Children and the parent each must sit in. */
const CHILDREN: Record<string, string> = { tab: "tabs", card: "cards", step: "steps", item: "accordion" };
const COMPONENTS = ["callout", "tabs", "tab", "accordion", "item", "cards", "card", "steps", "step", "api", "filetree", "mermaid", "katex", "math", "badge", "toc", "embed"] as const;
const KNOWN = new Set<string>(COMPONENTS);

const t = (html: string) => trust(html);
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function body(p: P, token: DirectiveToken): string {
  return p.parser.parse(token.tokens);
}

/** Splits a container's tokens into its expected children and anything else written between them. */
function children(token: DirectiveToken, child: string): { items: DirectiveToken[]; stray: Token[] } {
  const items: DirectiveToken[] = [];
  const stray: Token[] = [];
  for (const tk of token.tokens) {
    if (tk.type === "directive" && (tk as unknown as DirectiveToken).name === child) items.push(tk as unknown as DirectiveToken);
    else if (tk.type !== "space") stray.push(tk);
  }
  return { items, stray };
}

function strayNotice(p: P, token: DirectiveToken, child: string, stray: Token[]): string {
  if (stray.length === 0) return "";
  return notice(token.name, `content outside ::${child}[…] … :: blocks is shown below the ${token.name}`, token.line) + p.parser.parse(stray);
}

export function renderDirective(this: P, token: DirectiveToken): string {
  const name = token.name;
  if (!KNOWN.has(name)) {
    return notice(name, `unknown component "${name}" (known: ${COMPONENTS.filter((c) => !(c in CHILDREN)).join(", ")}); its content is shown as written`, token.line) + body(this, token);
  }
  const parent = CHILDREN[name];
  if (parent !== undefined && token.parent !== parent) {
    return notice(name, `::${name} belongs inside :::${parent}; its content is shown as written`, token.line) + body(this, token);
  }
  switch (name) {
    case "callout":
      return callout(this, token);
    case "tabs":
      return tabs(this, token);
    case "accordion":
      return accordion(this, token);
    case "cards":
      return cards(this, token);
    case "steps":
      return steps(this, token);
    case "api":
      return api(this, token);
    case "filetree":
      return filetree(this, token);
    case "mermaid":
      return mermaid(token.body);
    case "katex":
    case "math":
      return renderMath(token.body.trim(), true);
    case "badge":
      return t("<p>") + badge(token.arg ?? "", token.attrs, token.line) + t("</p>\n");
    case "toc":
      return toc(token);
    case "embed":
      return embed(token);
    default:
      // Children rendered by their parent; reaching here means a parent forgot one.
      return body(this, token);
  }
}

function callout(p: P, token: DirectiveToken): string {
  const requested = (token.arg ?? token.attrs.type ?? "note").trim().toLowerCase();
  let kind = (CALLOUTS as readonly string[]).includes(requested) ? requested : "note";
  let warn = "";
  if (kind !== requested) warn = notice("callout", `unknown callout type "${requested}" (use ${CALLOUTS.join(", ")}); shown as a note`, token.line);
  const title = token.attrs.title?.trim() || cap(kind);
  return (
    warn +
    t(`<aside class="callout callout-${kind}" role="note"><p class="callout-title">${escapeHtml(title)}</p><div class="callout-body">`) +
    body(p, token) +
    t("</div></aside>\n")
  );
}

function tabs(p: P, token: DirectiveToken): string {
  const { items, stray } = children(token, "tab");
  if (items.length === 0) return notice("tabs", "a :::tabs block needs ::tab[Label] … :: children; its content is shown as written", token.line) + body(p, token);
  const s = current();
  // Ids the renderer makes hold a capital letter: heading slugs never do, so they cannot collide.
  const group = `Tabs-${++s.counters.tabs}`;
  let html = t(`<div class="tabs" role="group">`);
  items.forEach((item, i) => {
    const id = `${group}-${i + 1}`;
    const label = item.arg?.trim() || `Tab ${i + 1}`;
    html += t(
      `<input class="tab-input" type="radio" name="${group}" id="${id}"${i === 0 ? " checked" : ""}>` +
        `<label class="tab-label" for="${id}">${escapeHtml(label)}</label><div class="tab-panel">`,
    );
    html += body(p, item) + t("</div>");
  });
  return html + t("</div>\n") + strayNotice(p, token, "tab", stray);
}

function accordion(p: P, token: DirectiveToken): string {
  const { items, stray } = children(token, "item");
  const details = (title: string, inner: string, open: boolean) =>
    t(`<details class="accordion"${open ? " open" : ""}><summary>${escapeHtml(title)}</summary><div class="accordion-body">`) + inner + t("</div></details>\n");
  if (items.length === 0) {
    const title = token.arg?.trim() || token.attrs.title?.trim();
    if (!title) return notice("accordion", "an accordion needs a title: :::accordion[Title] (or ::item[Title] children); shown open", token.line) + details("Details", body(p, token), true);
    return details(title, body(p, token), "open" in token.attrs);
  }
  let html = t(`<div class="accordion-group">`);
  for (const item of items) html += details(item.arg?.trim() || "Details", body(p, item), "open" in item.attrs);
  return html + t("</div>\n") + strayNotice(p, token, "item", stray);
}

/** A card's `link=`: a URL, a relative Markdown-style path (`./x.md`), or a page named like a wikilink. */
function cardHref(link: string): { href: string } | { broken: string } {
  const s = current();
  const l = link.trim();
  const isPath = /^[a-z][a-z0-9+.-]*:/i.test(l) || l.startsWith(".") || l.startsWith("/") || l.startsWith("#") || (/\.[a-z0-9]{1,8}(?:[#?]|$)/i.test(l) && !/\.md(?:[#?]|$)/i.test(l));
  if (isPath) return hrefFor(l);
  const hash = l.indexOf("#");
  return fromClassified(classifyWikiTarget(hash < 0 ? l : l.slice(0, hash), hash < 0 ? undefined : l.slice(hash + 1), s.opts.pagePath, s.opts.pageExists ?? (() => false)));
}

function cards(p: P, token: DirectiveToken): string {
  const { items, stray } = children(token, "card");
  if (items.length === 0) return notice("cards", "a :::cards block needs ::card[Title]{link=…} … :: children; its content is shown as written", token.line) + body(p, token);
  let html = t(`<div class="cards">`);
  for (const item of items) {
    const title = escapeHtml(item.arg?.trim() || "Untitled");
    let heading = title;
    if (item.attrs.link !== undefined) {
      const target = cardHref(item.attrs.link);
      heading = "broken" in target
        ? `<span class="broken-link" title="${escapeHtml(target.broken)}">${title}</span>`
        : `<a class="card-link" href="${escapeHtml(target.href)}">${title}</a>`;
    }
    html += t(`<div class="card"><p class="card-title">${heading}</p><div class="card-body">`) + body(p, item) + t("</div></div>");
  }
  return html + t("</div>\n") + strayNotice(p, token, "card", stray);
}

function steps(p: P, token: DirectiveToken): string {
  const { items, stray } = children(token, "step");
  if (items.length === 0) return notice("steps", "a :::steps block needs ::step[Title] … :: children; its content is shown as written", token.line) + body(p, token);
  let html = t(`<ol class="steps">`);
  for (const item of items) {
    const title = item.arg?.trim();
    html += t(`<li class="step">${title ? `<p class="step-title">${escapeHtml(title)}</p>` : ""}<div class="step-body">`) + body(p, item) + t("</div></li>");
  }
  return html + t("</ol>\n") + strayNotice(p, token, "step", stray);
}

function api(p: P, token: DirectiveToken): string {
  const m = /^\s*([A-Za-z]+)\s+(\S.*?)\s*$/.exec(token.arg ?? "");
  if (!m || !METHODS.has(m[1]!.toUpperCase())) {
    return notice("api", `expected :::api[METHOD /path] (a method such as GET or POST, then the path), got "${token.arg ?? ""}"`, token.line) + body(p, token);
  }
  const method = m[1]!.toUpperCase();
  return (
    t(`<div class="api"><p class="api-endpoint"><span class="api-method api-method-${method.toLowerCase()}">${method}</span> <code class="api-path">${escapeHtml(m[2]!)}</code></p><div class="api-body">`) +
    body(p, token) +
    t("</div></div>\n")
  );
}

function filetree(p: P, token: DirectiveToken): string {
  if (!token.tokens.some((tk) => tk.type === "list")) {
    return notice("filetree", "a filetree holds a Markdown list (- folder/ with indented - file items); its content is shown as written", token.line) + body(p, token);
  }
  return t(`<div class="filetree">`) + body(p, token) + t("</div>\n");
}

export function mermaid(source: string): string {
  current().hasMermaid = true;
  return t(`<pre class="mermaid">${escapeHtml(source.replace(/^\n+|\s+$/g, ""))}</pre>\n`);
}

function badge(text: string, attrs: Record<string, string>, line?: number): string {
  const requested = (attrs.variant ?? attrs.type ?? "default").toLowerCase();
  const variant = BADGE_VARIANTS.has(requested) ? requested : "default";
  const warn = variant === requested ? "" : notice("badge", `unknown badge variant "${requested}" (use ${[...BADGE_VARIANTS].join(", ")})`, line, true);
  if (text.trim() === "") return warn + notice("badge", "a badge needs its text: :badge[Text]", line, true);
  return warn + t(`<span class="badge badge-${variant}">${escapeHtml(text.trim())}</span>`);
}

/** The table of contents is built once the whole page (and so every heading) is rendered. */
const TOC_SENTINEL = "\u0000toc\u0000";

function toc(token: DirectiveToken): string {
  const s = current();
  const max = Math.min(6, Math.max(1, Number(token.attrs.depth ?? token.attrs["max-depth"] ?? 3) || 3));
  s.tocs.push({ index: s.trusted.length, maxDepth: max });
  return t(TOC_SENTINEL);
}

/** Fills in every toc placeholder of the page from its headings. */
export function fillTocs(): void {
  const s = current();
  for (const { index, maxDepth } of s.tocs) {
    const items = s.headings.filter((h) => h.depth >= 2 && h.depth <= maxDepth);
    s.trusted[index] =
      items.length === 0
        ? ""
        : `<nav class="toc" aria-label="On this page"><ul>${items
            .map((h) => `<li class="toc-h${h.depth}"><a href="#${escapeHtml(h.id)}">${escapeHtml(h.text)}</a></li>`)
            .join("")}</ul></nav>\n`;
  }
}

function embed(token: DirectiveToken): string {
  const url = (token.arg ?? token.attrs.url ?? "").trim();
  if (url === "") return notice("embed", "an embed needs a URL: ::embed[https://…]", token.line);
  const found = embedFor(url);
  const title = escapeHtml(token.attrs.title?.trim() || found?.title || url);
  if (found && current().opts.embeds !== "link") {
    return t(
      `<div class="embed embed-${found.provider}"><iframe src="${escapeHtml(found.src)}" title="${title}" loading="lazy" ` +
        `sandbox="allow-scripts allow-same-origin allow-popups allow-presentation" referrerpolicy="strict-origin-when-cross-origin" ` +
        `allow="fullscreen; picture-in-picture; encrypted-media" allowfullscreen></iframe></div>\n`,
    );
  }
  const c = classifyHref(url, current().opts.pagePath);
  if (c.kind === "external") return t(`<p class="embed-link"><a href="${escapeHtml(c.href)}" rel="noopener">${title}</a></p>\n`);
  return notice("embed", `"${url}" is not a web address that can be embedded or linked`, token.line);
}

export function renderDirectiveError(this: P, token: DirectiveErrorToken): string {
  const shown = token.text !== undefined ? t(`<pre class="render-notice-source">${escapeHtml(token.text)}</pre>\n`) : "";
  return notice(token.name, token.message, token.line) + shown;
}

export function renderInlineDirective(this: P, token: InlineDirectiveToken): string {
  return badge(token.text, token.attrs);
}
