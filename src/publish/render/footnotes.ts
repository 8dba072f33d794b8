import type { Lexer, Parser, Token, TokenizerExtension } from "marked";
import { escapeHtml } from "../../core/escape.ts";
import { current, trust } from "./state.ts";

/**
 * GFM footnotes: `text[^label]` and `[^label]: note` (continued by lines indented four spaces).
 * Markup follows GitHub's (a `section.footnotes` list at the end, numbered by first reference,
 * back links to every reference). Written here rather than taken from marked-footnote, whose
 * lookups scan every definition for every reference: 10,000 footnotes took seconds. Ids start
 * with a capital letter (`Fn-1`, `Fnref-1`), which heading slugs never hold, so they cannot clash.
 * marked lexes every block before any inline text, so all definitions are known when the first
 * reference is read.
 */

interface FootnoteRefToken {
  type: "footnoteRef";
  raw: string;
  key: string;
  ref: number;
}

const DEF_START = /^ {0,3}\[\^([^\]\n]+)\]:[ \t]*/;

function findStart(src: string): number | undefined {
  const end = /\n[ \t]*\n/.exec(src);
  const m = /^ {0,3}\[\^[^\]\n]+\]:/m.exec(end ? src.slice(0, end.index + 1) : src);
  return m ? m.index : undefined;
}

export const footnoteDefinition: TokenizerExtension = {
  name: "footnoteDefinition",
  level: "block",
  start: findStart,
  tokenizer(this: { lexer: Lexer }, src: string) {
    const m = DEF_START.exec(src);
    if (!m) return undefined;
    let pos = m[0].length;
    const firstEnd = src.indexOf("\n", pos);
    let text = src.slice(pos, firstEnd < 0 ? src.length : firstEnd);
    pos = firstEnd < 0 ? src.length : firstEnd + 1;
    // Continuation: lines indented by four spaces or a tab, blank lines between them allowed.
    for (;;) {
      const rest = /^((?:[ \t]*\n)*)( {4}|\t)([^\n]*)(?:\n|$)/.exec(src.slice(pos, pos + 100_000));
      if (!rest) break;
      text += "\n" + rest[1]!.replace(/[ \t]+/g, "") + rest[3]!;
      pos += rest[0].length;
    }
    const key = m[1]!.trim().toLowerCase();
    const s = current();
    if (!s.footnotes.has(key)) {
      const tokens = this.lexer.blockTokens(text, []);
      s.footnotes.set(key, { label: m[1]!.trim(), tokens, number: 0, refs: 0, id: "" });
    }
    return { type: "footnoteDefinition", raw: src.slice(0, pos), tokens: [] };
  },
};

export const footnoteReference: TokenizerExtension = {
  name: "footnoteRef",
  level: "inline",
  // No start(): marked's text runs stop before every "[".
  tokenizer(src: string): FootnoteRefToken | undefined {
    const m = /^\[\^([^\]\n]+)\]/.exec(src);
    if (!m) return undefined;
    const key = m[1]!.trim().toLowerCase();
    const s = current();
    const def = s.footnotes.get(key);
    if (!def) return undefined;
    if (def.number === 0) {
      def.number = ++s.footnoteCount;
      def.id = /^[A-Za-z0-9_-]{1,64}$/.test(def.label) ? def.label : String(def.number);
      s.footnoteOrder.push(def);
    }
    def.refs++;
    return { type: "footnoteRef", raw: m[0], key, ref: def.refs };
  },
};

export function renderFootnoteRef(token: FootnoteRefToken): string {
  const def = current().footnotes.get(token.key)!;
  // "." cannot occur in a label-based id, so the second reference of "a" never meets label "a-2".
  const suffix = token.ref > 1 ? `.${token.ref}` : "";
  return trust(
    `<sup><a id="Fnref-${escapeHtml(def.id)}${suffix}" href="#Fn-${escapeHtml(def.id)}" data-footnote-ref aria-describedby="Footnotes-label">${def.number}</a></sup>`,
  );
}

/** The footnotes section, rendered after the page (definitions in order of first reference). */
export function renderFootnotes(parser: Parser<string, string>): string {
  const s = current();
  if (s.footnoteOrder.length === 0) return "";
  let html = trust(`<section class="footnotes" data-footnotes>\n<h2 id="Footnotes-label" class="sr-only">Footnotes</h2>\n<ol>\n`);
  for (const def of s.footnoteOrder) {
    const id = escapeHtml(def.id);
    let back = "";
    for (let r = 1; r <= def.refs; r++) {
      const suffix = r > 1 ? `.${r}` : "";
      back += ` <a href="#Fnref-${id}${suffix}" data-footnote-backref aria-label="Back to reference ${def.number}${r > 1 ? `-${r}` : ""}">↩${r > 1 ? `<sup>${r}</sup>` : ""}</a>`;
    }
    let inner = parser.parse(def.tokens).trimEnd();
    // The back links go inside the note's last paragraph, as GitHub places them.
    inner = inner.endsWith("</p>") ? inner.slice(0, -4) + trust(back) + "</p>" : inner + trust(back);
    html += trust(`<li id="Fn-${id}">`) + inner + trust("</li>\n");
  }
  return html + trust("</ol>\n</section>\n");
}
