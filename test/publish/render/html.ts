/**
 * HTML helpers for the renderer's tests, on a real HTML parser (htmlparser2, the parser
 * sanitize-html itself uses, so both read markup the same way).
 */
import { Parser } from "htmlparser2";

const VOID = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]);
const BLOCK = new Set([
  "address", "article", "aside", "blockquote", "body", "caption", "center", "col", "colgroup", "dd", "details", "dialog", "dir",
  "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header",
  "hr", "html", "iframe", "legend", "li", "link", "main", "menu", "menuitem", "meta", "nav", "noframes", "ol", "optgroup", "option",
  "p", "param", "pre", "section", "source", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "title", "tr", "track", "ul",
]);

export interface Element {
  name: string;
  attribs: Record<string, string>;
}

/** Every element of an HTML fragment, in document order. */
export function elements(html: string): Element[] {
  const out: Element[] = [];
  const parser = new Parser({ onopentag: (name, attribs) => out.push({ name, attribs }) }, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true });
  parser.write(html);
  parser.end();
  return out;
}

/** The text of an HTML fragment as a browser would show it (entities decoded). */
export function text(html: string): string {
  let out = "";
  const parser = new Parser({ ontext: (t) => (out += t) }, { decodeEntities: true });
  parser.write(html);
  parser.end();
  return out;
}

function escapeText(t: string): string {
  return t.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function canonicalUrl(value: string): string {
  try {
    return new URL(value, "http://page.test/").href;
  } catch {
    return value;
  }
}

export interface NormalizeOptions {
  /** Drop `id` on headings and the renderer's heading anchor links (a documented deviation). */
  headingIds?: boolean;
  /** Reduce the renderer's code block chrome to `<pre><code class="language-x">text</code></pre>`. */
  codeBlocks?: boolean;
}

/**
 * A canonical form of an HTML fragment for comparisons, after commonmark.js's own normalization
 * of its spec tests: attributes sorted, entities decoded and re-escaped the same way, runs of
 * whitespace collapsed (except inside <pre>) and dropped next to block-level tags, `<br/>` read as
 * `<br>`, URLs in href/src resolved against one base (so `uri` and `/uri` from a root page agree).
 */
export function normalizeHtml(html: string, opts: NormalizeOptions = {}): string {
  let out = "";
  let pre = 0;
  let skip = 0; // depth inside dropped elements (heading anchors, a code block's title and copy button)
  let codeFigure = 0;
  let code = 0;
  // Per open element: "drop" (element and content gone), "unwrap" (content kept), or "keep".
  const stack: Array<"drop" | "unwrap" | "keep"> = [];
  const hasClass = (attribs: Record<string, string>, c: string) => (attribs.class ?? "").split(/\s+/).includes(c);

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        let mode: "drop" | "unwrap" | "keep" = "keep";
        if (skip > 0) mode = "drop";
        else if (opts.headingIds && name === "a" && hasClass(attribs, "heading-anchor")) mode = "drop";
        else if (opts.codeBlocks && codeFigure > 0 && code === 0 && (name === "button" || name === "figcaption")) mode = "drop";
        else if (opts.codeBlocks && name === "figure" && hasClass(attribs, "code-block")) mode = "unwrap";
        else if (opts.codeBlocks && code > 0 && name === "span") mode = "unwrap";
        stack.push(mode);
        if (mode === "drop") {
          skip++;
          return;
        }
        if (name === "figure" && mode === "unwrap") codeFigure++;
        if (name === "pre") pre++;
        if (name === "code" && codeFigure > 0) code++;
        if (mode === "unwrap") return;
        const attrs = { ...attribs };
        if (opts.headingIds && /^h[1-6]$/.test(name)) delete attrs.id;
        if (opts.codeBlocks && codeFigure > 0 && name === "pre") {
          delete attrs.class;
          delete attrs.tabindex;
        }
        if (opts.codeBlocks && codeFigure > 0 && name === "code") {
          const lang = (attrs.class ?? "").split(/\s+/).find((c) => c.startsWith("language-") && c !== "language-none");
          if (lang) attrs.class = lang;
          else delete attrs.class;
        }
        let tag = `<${name}`;
        for (const k of Object.keys(attrs).sort()) {
          const v = k === "href" || k === "src" ? canonicalUrl(attrs[k]!) : attrs[k]!;
          tag += ` ${k}="${escapeText(v)}"`;
        }
        out += tag + ">";
      },
      ontext(t) {
        if (skip > 0) return;
        out += pre > 0 ? escapeText(t).replace(/\s/g, (c) => (c === " " ? "\u0002" : c === "\n" ? "\u0003" : c === "\t" ? "\u0004" : c)) : escapeText(t.replace(/\s+/g, " "));
      },
      onclosetag(name) {
        const mode = stack.pop();
        if (mode === "drop") {
          skip--;
          return;
        }
        if (name === "pre") pre--;
        if (name === "code" && codeFigure > 0) code--;
        if (name === "figure" && mode === "unwrap") codeFigure--;
        if (mode === "unwrap" || VOID.has(name)) return;
        out += `</${name}>`;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: true },
  );
  parser.write(html);
  parser.end();
  // Whitespace next to block-level tags is not significant; inside <pre> it was protected above.
  const blockTag = new RegExp(`\\s*(</?(?:${[...BLOCK].join("|")})(?:\\s[^>]*)?>)\\s*`, "g");
  return out
    .replace(/ +/g, " ")
    .replace(blockTag, "$1")
    .replace(/<br> ?/g, "<br>")
    .replace(/\u0002/g, " ")
    .replace(/\u0003/g, "\n")
    .replace(/\u0004/g, "\t")
    .trim();
}
