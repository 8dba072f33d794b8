import { Marked, type Token, type Tokens } from "marked";
import { parseInfo, renderCodeBlock } from "./code.ts";
import { mermaid, renderDirective, renderDirectiveError, renderInlineDirective } from "./components.ts";
import { blockDirective, blockMath, inlineDirective, inlineMath, type DirectiveErrorToken, type DirectiveToken, type InlineDirectiveToken } from "./directives.ts";
import { footnoteDefinition, footnoteReference, renderFootnoteRef, renderFootnotes } from "./footnotes.ts";
import { renderMath } from "./math.ts";
import { escapeHtml } from "../../core/escape.ts";
import { decodeEntities } from "./escape.ts";
import { classifyWikiTarget } from "./links.ts";
import { brokenLink, fromClassified, hrefFor } from "./resolve.ts";
import { current, trust } from "./state.ts";

/**
 * The one marked instance every render uses: GFM (tables, task lists, strikethrough, autolinks),
 * heading ids with anchor links, link and image resolution through the caller's `resolveLink`,
 * and wikilinks. Components, footnotes, code and math are added by their own modules (see
 * `extensions` below); per-page state lives in state.ts.
 */

const WIKILINK = /^\[\[([^\[\]|#\n]*?)(?:#([^\[\]|\n]*))?(?:\|([^\[\]\n]*))?\]\]/;

interface WikiToken extends Tokens.Generic {
  type: "wikilink";
  target: string;
  heading?: string;
  label?: string;
}

/** Plain text of inline tokens (for heading slugs and the headings list). */
function plainText(tokens: Token[] | undefined): string {
  if (!tokens) return "";
  let out = "";
  for (const t of tokens) {
    if (t.type === "html") continue;
    if ("tokens" in t && t.tokens && t.tokens.length > 0) out += plainText(t.tokens);
    else if (t.type === "wikilink") out += (t as WikiToken).label ?? (t as WikiToken).target;
    else if (t.type === "image") out += (t as Tokens.Image).text;
    else if ("text" in t && typeof t.text === "string") out += t.type === "codespan" || t.type === "escape" ? t.text : decodeEntities(t.text);
  }
  return out;
}

/**
 * Raw HTML elements whose content is code or raw text (script, style, textarea, title, iframe,
 * xmp, noembed, noframes, plaintext). A complete one is removed with its content, as the sanitizer
 * would; an unclosed one has its `<` escaped (GFM's "disallowed raw HTML" tag filter), so it shows
 * as text and cannot swallow the rest of the page as raw text.
 */
const RAW_TEXT_TAGS = "title|textarea|style|xmp|iframe|noembed|noframes|script|plaintext";
const RAW_TEXT_ELEMENT = new RegExp(`<(${RAW_TEXT_TAGS})(?=[\\s/>])[^>]*>[\\s\\S]*?</\\1\\s*>`, "gi");
const DISALLOWED_RAW = new RegExp(`<(?=/?(?:${RAW_TEXT_TAGS})(?=[\\s/>]|$))`, "gi");

function filterDisallowedRawHtml(html: string): string {
  return html.replace(RAW_TEXT_ELEMENT, "").replace(DISALLOWED_RAW, "&lt;");
}

function titleAttribute(title: string | null | undefined): string {
  return title ? ` title="${escapeHtml(decodeEntities(title))}"` : "";
}

export function createMarked(): Marked {
  const marked = new Marked({ gfm: true, breaks: false, async: false });
  marked.use({
    tokenizer: {
      // marked tries its setext-heading expression on every paragraph (a tenth of a page's render);
      // with no line that could underline one, there is none to find. false: marked's own tokenizer.
      lheading: () => (current().setextPossible ? false : undefined),
    },
    hooks: {
      // The footnotes section goes after everything else on the page.
      processAllTokens(tokens) {
        tokens.push({ type: "footnotes", raw: "" });
        return tokens;
      },
    },
    extensions: [
      { ...footnoteDefinition, renderer: () => "" },
      {
        ...footnoteReference,
        renderer(token) {
          return renderFootnoteRef(token as never);
        },
      },
      {
        name: "footnotes",
        renderer() {
          return renderFootnotes(this.parser);
        },
      },
      {
        ...blockDirective,
        renderer(token) {
          return renderDirective.call(this, token as unknown as DirectiveToken);
        },
      },
      {
        name: "directiveError",
        renderer(token) {
          return renderDirectiveError.call(this, token as unknown as DirectiveErrorToken);
        },
      },
      {
        ...inlineDirective,
        renderer(token) {
          return renderInlineDirective.call(this, token as unknown as InlineDirectiveToken);
        },
      },
      { ...blockMath, renderer: (token) => renderMath(String(token.text), true) },
      { ...inlineMath, renderer: (token) => renderMath(String(token.text), Boolean(token.display)) },
      {
        name: "wikilink",
        level: "inline",
        // No start(): marked's text runs already stop before every "[", where this tokenizer is tried.
        tokenizer(src: string): WikiToken | undefined {
          const m = WIKILINK.exec(src);
          if (!m) return undefined;
          const token: WikiToken = { type: "wikilink", raw: m[0], target: m[1]! };
          if (m[2] !== undefined) token.heading = m[2];
          if (m[3] !== undefined && m[3].trim() !== "") token.label = m[3].trim();
          return token;
        },
        renderer(token) {
          const t = token as WikiToken;
          const s = current();
          const exists = s.opts.pageExists ?? (() => false);
          const shown = t.label ?? (t.target.trim().replace(/^\/+/, "").replace(/\.md$/i, "") + (t.heading ? `#${t.heading}` : "") || t.heading || "");
          const text = escapeHtml(shown);
          const result = fromClassified(classifyWikiTarget(t.target, t.heading, s.opts.pagePath, exists));
          if ("broken" in result) return brokenLink(text, result.broken);
          return `<a class="wikilink" href="${escapeHtml(result.href)}">${text}</a>`;
        },
      },
    ],
    renderer: {
      code({ text, lang }) {
        const s = current();
        const info = parseInfo(lang === undefined ? undefined : decodeEntities(lang));
        text = text.replace(/\n$/, "");
        if (info.lang.toLowerCase() === "mermaid") return mermaid(text);
        if (info.lang.toLowerCase() === "math" || info.lang.toLowerCase() === "katex") return renderMath(text, true);
        s.hasCode = true;
        return trust(renderCodeBlock(text, info));
      },
      html({ text }) {
        return filterDisallowedRawHtml(text);
      },
      heading({ tokens, depth }) {
        const s = current();
        const inner = this.parser.parseInline(tokens);
        const text = plainText(tokens).trim();
        const id = s.slugger.slug(text === "" ? "section" : text);
        s.headings.push({ depth, text, id });
        const anchor = trust(`<a class="heading-anchor" href="#${escapeHtml(id)}" aria-hidden="true" tabindex="-1">#</a>`);
        return `<h${depth} id="${escapeHtml(id)}">${inner}${anchor}</h${depth}>\n`;
      },
      link({ href, title, tokens }) {
        const inner = this.parser.parseInline(tokens);
        const result = hrefFor(href);
        if ("broken" in result) return brokenLink(inner, result.broken);
        return `<a href="${escapeHtml(result.href)}"${titleAttribute(title)}>${inner}</a>`;
      },
      image({ href, title, text, tokens }) {
        // The alt text is the plain text of the description (CommonMark: no markup in alt).
        const alt = decodeEntities(tokens ? this.parser.parseInline(tokens, this.parser.textRenderer) : text);
        const result = hrefFor(href, true);
        if ("broken" in result) return brokenLink(escapeHtml(alt), result.broken);
        return `<img src="${escapeHtml(result.href)}" alt="${escapeHtml(alt)}"${titleAttribute(title)}>`;
      },
    },
  });
  return marked;
}
