/**
 * HTML pasted from Google Docs, Word, Notion and web pages, made into the plain structure the
 * editor's schema understands before ProseMirror parses it (docs/decisions/editor-paste.md):
 * formatting that these programs express as inline styles becomes the elements it means (bold,
 * italic, strikethrough, code), everything else about presentation goes (styles, classes, ids,
 * fonts, Word's conditional comments and `o:` elements), scripts and event handlers never reach
 * the document, links lose `javascript:`/`data:` targets, redirect wrappers and tracking
 * parameters, and oversized inline images are dropped. What is left parses into headings, lists,
 * tables, links, marks and code, and is saved as clean Markdown by the editor's serializer.
 */

/** Past this size a paste is taken as plain text: parsing megabytes of nested tables would freeze the editor. */
export const MAX_PASTE_HTML = 2 * 1024 * 1024;
/** Inline images (data: URLs) larger than this are dropped; images are uploaded as files instead. */
const MAX_DATA_URL = 256 * 1024;
/** Tables inside tables deeper than this are flattened to their text. */
const MAX_TABLE_DEPTH = 2;

const DROP = new Set(["SCRIPT", "STYLE", "META", "LINK", "TITLE", "NOSCRIPT", "TEMPLATE", "IFRAME", "OBJECT", "EMBED", "FORM", "INPUT", "BUTTON", "SELECT", "TEXTAREA", "SVG", "MATH", "CANVAS", "VIDEO", "AUDIO", "XML"]);
const KEEP_ATTRS: Record<string, string[]> = { A: ["href", "title"], IMG: ["src", "alt", "title", "width"], TD: ["colspan", "rowspan"], TH: ["colspan", "rowspan"], OL: ["start"], CODE: [], PRE: [] };
/** The name pasted `style` attributes are parsed under (see cleanPastedHtml). */
const STYLE = "data-pasted-style";
const TRACKING = /^(utm_[a-z]+|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|igshid|_hsenc|_hsmi|ved|usg|sa|source|sca_esv)$/i;

/** The cleaned HTML of a paste, or null when it should be pasted as plain text instead. */
export function cleanPastedHtml(html: string): string | null {
  if (html.length > MAX_PASTE_HTML) return null;
  // Word's conditional comments wrap fallbacks that would otherwise paste twice. Style elements,
  // style attributes and event handlers would each be checked against the app's CSP (and reported
  // as refused) even in a parsed, never displayed document: the elements go before parsing, the
  // attributes are parsed under other names (read for their meaning, or dropped with the rest).
  const source = html
    .replace(/<!--\[if[\s\S]*?<!\[endif\]-->/gi, "")
    .replace(/<style\b[\s\S]*?<\/style\s*>/gi, "")
    .replace(/<[a-zA-Z][^<>]*>/g, (tag) =>
      tag.replace(/(\s)(style|on[a-z]+)(\s*=)/gi, (_m, space: string, name: string, eq: string) => `${space}${name.toLowerCase() === "style" ? STYLE : `data-pasted-${name}`}${eq}`),
    );
  const doc = new DOMParser().parseFromString(source, "text/html");
  cleanChildren(doc.body, 0);
  return doc.body.innerHTML;
}

function cleanChildren(parent: Element, tableDepth: number): void {
  for (const node of Array.from(parent.childNodes)) {
    if (node.nodeType === Node.COMMENT_NODE || node.nodeType === Node.PROCESSING_INSTRUCTION_NODE) node.remove();
    else if (node.nodeType === Node.ELEMENT_NODE) cleanElement(node as Element, tableDepth);
  }
}

function cleanElement(el: Element, tableDepth: number): void {
  const tag = el.tagName.toUpperCase();
  // Namespaced Office elements (o:p, w:sdt, v:shape…) are layout, never content to keep as such.
  if (DROP.has(tag) || (tag.includes(":") && tag !== "O:P")) return void el.remove();
  if (tag === "O:P") return void unwrap(el);
  const depth = tag === "TABLE" ? tableDepth + 1 : tableDepth;
  if (tag === "TABLE" && depth > MAX_TABLE_DEPTH) {
    el.replaceWith(el.ownerDocument.createTextNode(el.textContent ?? ""));
    return;
  }
  const style = (el.getAttribute(STYLE) ?? "").toLowerCase();
  // Google Docs wraps a whole paste in <b style="font-weight:normal" id="docs-internal-guid-…">.
  if (tag === "B" && (/font-weight:\s*(normal|[1-4]00)\b/.test(style) || (el.id ?? "").startsWith("docs-internal-guid"))) {
    cleanChildren(el, depth);
    return void unwrap(el);
  }
  if (tag === "IMG") {
    const src = el.getAttribute("src") ?? "";
    if (!/^(https?:|\/)/i.test(src) && !(src.startsWith("data:image/") && src.length <= MAX_DATA_URL)) return void el.remove();
  }
  if (tag === "A") cleanLink(el);
  cleanChildren(el, depth);
  const wrapped = markFromStyle(el, tag, style);
  stripAttributes(el, tag);
  if (wrapped && tag === "SPAN") unwrap(el);
  else if (tag === "SPAN" || tag === "FONT" || (tag === "DIV" && el.parentElement?.tagName === "LI")) unwrap(el);
}

/** Inline styles that mean a mark: the element's content is wrapped in the mark's element. */
function markFromStyle(el: Element, tag: string, style: string): boolean {
  if (style === "" || /^(H[1-6]|PRE|CODE|STRONG|B|EM|I|S|DEL)$/.test(tag)) return false;
  const marks: string[] = [];
  if (/font-weight:\s*(bold|bolder|[6-9]00)\b/.test(style)) marks.push("strong");
  if (/font-style:\s*italic\b/.test(style)) marks.push("em");
  if (/text-decoration[^;]*line-through/.test(style)) marks.push("s");
  if (/font-family:[^;]*(mono|courier|consolas|menlo)/.test(style) && tag === "SPAN") marks.push("code");
  if (marks.length === 0) return false;
  const doc = el.ownerDocument;
  let inner: Element | null = null;
  let outer: Element | null = null;
  for (const m of marks) {
    const next = doc.createElement(m);
    if (inner) inner.appendChild(next);
    else outer = next;
    inner = next;
  }
  while (el.firstChild) inner!.appendChild(el.firstChild);
  el.appendChild(outer!);
  return true;
}

function cleanLink(a: Element): void {
  const href = unwrapRedirect((a.getAttribute("href") ?? "").trim());
  if (!/^(https?:|mailto:|#|\/|\.{0,2}\/?[\w-])/i.test(href) || /^(javascript|data|vbscript|file):/i.test(href)) {
    a.removeAttribute("href");
    return;
  }
  a.setAttribute("href", withoutTracking(href));
}

/** Google's and Outlook's redirect wrappers hold the real target in a parameter. */
function unwrapRedirect(href: string): string {
  try {
    const url = new URL(href);
    if (/(^|\.)google\.[a-z.]+$/.test(url.hostname) && url.pathname === "/url") return url.searchParams.get("q") ?? url.searchParams.get("url") ?? href;
    if (/safelinks\.protection\.outlook\.com$/.test(url.hostname)) return url.searchParams.get("url") ?? href;
  } catch {
    // A relative link or an anchor: nothing to unwrap.
  }
  return href;
}

function withoutTracking(href: string): string {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return href;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return href;
  const drop = [...url.searchParams.keys()].filter((k) => TRACKING.test(k));
  if (drop.length === 0) return href;
  for (const k of drop) url.searchParams.delete(k);
  return url.toString();
}

function stripAttributes(el: Element, tag: string): void {
  const keep = KEEP_ATTRS[tag] ?? [];
  for (const attr of Array.from(el.attributes)) {
    const lang = tag === "CODE" && attr.name === "class" && /^language-[\w+-]+$/.test(attr.value);
    if (!keep.includes(attr.name) && !lang) el.removeAttribute(attr.name);
  }
}

function unwrap(el: Element): void {
  el.replaceWith(...Array.from(el.childNodes));
}

/** Plain text that reads as Markdown blocks (a heading, a list, a quote, a fence, a table, a rule). */
export function looksLikeMarkdown(text: string): boolean {
  return /^(#{1,6} |[-*+] |\d{1,9}[.)] |> |```|~~~|\|.*\||---\s*$|\*\*\*\s*$)/m.test(text) || /\[[^\]]+\]\([^)]+\)|\*\*[^*]+\*\*|`[^`]+`/.test(text);
}
