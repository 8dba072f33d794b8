import sanitizeHtml from "sanitize-html";
import { TRUST_CLOSE, TRUST_OPEN } from "./state.ts";

/**
 * The sanitizer policy for everything a page's author controls (docs/decisions/rendering.md).
 *
 * The whole rendered page goes through sanitize-html once, so raw HTML split across Markdown
 * blocks is judged as the browser will read it. Markup the renderer builds itself (component
 * chrome, highlighted code, KaTeX, embeds, notices) is not in the HTML at that point: it sits
 * behind placeholders (state.ts `trust`) and is put back afterwards, so it may use what authors
 * may not (KaTeX's inline `style`, `<iframe>` for allow-listed embeds, radio inputs for tabs).
 *
 * Allowed for authors:
 * - tags: text structure and formatting (p, br, hr, h1–h6, blockquote, pre, code, lists, dl,
 *   tables, em/strong/b/i/u/s/del/ins/mark/small/sub/sup/kbd/samp/var/abbr/cite/q/dfn/time,
 *   span, div, section, figure, figcaption, details/summary, a, img, ruby/rt/rp, bdi/bdo, wbr),
 *   and `<input type="checkbox" disabled>` (task lists);
 * - attributes: `class`, `id`, `title`, `lang`, `dir`, `aria-*` and the footnote `data-*` markers
 *   everywhere; `href` on a; `src alt title width height loading` on img; table alignment and
 *   spans; list `start`/`type`/`reversed`/`value`; `open` on details; `datetime` on time;
 * - URLs: http, https, mailto, tel (and relative); images also raster `data:` images. Relative
 *   links authors write in Markdown were already resolved by the renderer.
 *
 * Never: script, style, iframe/object/embed, form controls other than the disabled checkbox,
 * event-handler attributes, `style` attributes, `javascript:`/`vbscript:`/`data:` links, `<base>`,
 * `<meta>`, `<link>`, SVG/MathML from authors. Disallowed tags are dropped with their markup but
 * keep their text (script/style/textarea/option lose the text too: it is code, not prose).
 */
const GLOBAL_ATTRIBUTES = ["class", "id", "title", "lang", "dir", "aria-*", "data-footnote-ref", "data-footnotes", "data-footnote-backref", "role"];

const POLICY: sanitizeHtml.IOptions = {
  allowedTags: [
    "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "code",
    "ul", "ol", "li", "dl", "dt", "dd",
    "table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption", "colgroup", "col",
    "em", "strong", "b", "i", "u", "s", "del", "ins", "mark", "small", "sub", "sup", "kbd", "samp", "var",
    "abbr", "cite", "q", "dfn", "time", "span", "div", "section", "figure", "figcaption",
    "details", "summary", "a", "img", "ruby", "rt", "rp", "bdi", "bdo", "wbr", "input",
  ],
  allowedAttributes: {
    "*": GLOBAL_ATTRIBUTES,
    a: ["href", "name", "rel"],
    img: ["src", "alt", "width", "height", "loading"],
    td: ["align", "colspan", "rowspan"],
    th: ["align", "colspan", "rowspan", "scope"],
    col: ["span"],
    colgroup: ["span"],
    ol: ["start", "type", "reversed"],
    li: ["value"],
    details: ["open"],
    time: ["datetime"],
    q: ["cite"],
    input: ["type", "checked", "disabled"],
  },
  allowedSchemes: ["http", "https", "mailto", "tel"],
  allowedSchemesByTag: { img: ["http", "https", "data"] },
  allowedSchemesAppliedToAttributes: ["href", "src", "cite"],
  allowProtocolRelative: true,
  // The only input authors may keep is the read-only checkbox of a task list.
  exclusiveFilter: (frame) => frame.tag === "input" && (frame.attribs.type !== "checkbox" || !("disabled" in frame.attribs)),
  transformTags: {
    img: (tagName, attribs) => {
      // Only raster data: images (an SVG document can carry script when opened on its own).
      if (attribs.src !== undefined && /^\s*data:/i.test(attribs.src) && !/^\s*data:image\/(png|jpeg|gif|webp|avif);/i.test(attribs.src)) {
        const { src: _dropped, ...rest } = attribs;
        return { tagName, attribs: rest };
      }
      return { tagName, attribs };
    },
  },
  parser: { lowerCaseTags: true, lowerCaseAttributeNames: true },
};

const PLACEHOLDER_OR_TAG = new RegExp(`<[^>]*>|${TRUST_OPEN}(\\d+)${TRUST_CLOSE}`, "g");

/**
 * Sanitizes the page, then puts the renderer's own markup back where its placeholders stand in
 * text. A placeholder an author's broken HTML dragged into an attribute value is not restored
 * (the scan skips tags), so trusted markup can never land inside an attribute.
 */
export function sanitizePage(html: string, trusted: string[]): string {
  const clean = sanitizeHtml(html, POLICY);
  if (trusted.length === 0) return clean;
  return clean.replace(PLACEHOLDER_OR_TAG, (whole, index?: string) => (index === undefined ? whole : trusted[Number(index)] ?? ""));
}

/** Removes the placeholder delimiters from author input, so only the renderer can make placeholders. */
export function stripPlaceholderMarks(text: string): string {
  return text.includes(TRUST_OPEN) || text.includes(TRUST_CLOSE) ? text.replace(/[\uE000\uE001]/g, "\uFFFD") : text;
}
