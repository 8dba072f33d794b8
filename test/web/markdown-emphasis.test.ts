/**
 * Bold, italic and strikethrough typed with the editor's shortcuts (Ctrl+B, Ctrl+I) land anywhere
 * in a line: right after a letter, around punctuation, in languages written without spaces. The
 * written Markdown must read back as the same marks, where CommonMark's flanking rules would leave
 * `**Note:**text` as literal asterisks.
 */
import { describe, expect, test } from "bun:test";
import { marked } from "marked";
import { MarkdownSession } from "../../src/web/markdown/session.ts";
import type { PMMark, PMNode } from "../../src/web/markdown/pm.ts";

const BOLD = { type: "bold" };
const ITALIC = { type: "italic" };
const STRIKE = { type: "strike" };
const text = (t: string, ...marks: PMMark[]): PMNode => (marks.length ? { type: "text", text: t, marks } : { type: "text", text: t });

/** Writes one new paragraph after an untouched first one; gives the file and the paragraph as read back. */
function write(content: PMNode[]) {
  const source = "Untouched *first* paragraph.\n";
  const s = new MarkdownSession(source);
  expect(s.rebase(s.initial)).toBe(true);
  const file = s.save({ type: "doc", content: [s.initial.content![0]!, { type: "paragraph", content }] });
  expect(file.startsWith(source + "\n")).toBe(true);
  const written = file.slice(source.length + 1).replace(/\n$/, "");
  const again = new MarkdownSession(written + "\n").initial.content!;
  expect(again).toHaveLength(1);
  return { written, readBack: again[0]!, html: marked.parse(written, { gfm: true, async: false }) as string };
}

/** Marks compared as sets: ProseMirror orders them by schema, marked by nesting. */
const normal = (nodes: PMNode[] | undefined) =>
  (nodes ?? []).map((n) => ({ ...n, marks: n.marks ? [...n.marks].map((m) => m.type).sort() : undefined }));

describe("emphasis next to punctuation", () => {
  test("bold ending in punctuation right before a letter closes; the letter is a character reference", () => {
    const { written, readBack, html } = write([text("Note:", BOLD), text("text follows")]);
    expect(written).toBe("**Note:**&#x74;ext follows");
    expect(html).toBe("<p><strong>Note:</strong>text follows</p>\n");
    expect(normal(readBack.content)).toEqual(normal([text("Note:", BOLD), text("text follows")]));
  });

  test("emphasis starting with punctuation right after a letter opens", () => {
    for (const mark of [BOLD, ITALIC, STRIKE]) {
      const content = [text("un"), text("(believ)", mark), text("able")];
      const { written, readBack } = write(content);
      expect(written).toStartWith("u&#x6E;");
      expect(written).toEndWith("&#x61;ble");
      expect(normal(readBack.content)).toEqual(normal(content));
    }
  });

  test("Chinese text without spaces keeps its bold", () => {
    const content = [text("用"), text("粗体。", BOLD), text("然后继续")];
    const { written, html, readBack } = write(content);
    expect(written).toBe("用**粗体。**&#x7136;后继续");
    expect(html).toBe("<p>用<strong>粗体。</strong>然后继续</p>\n");
    expect(normal(readBack.content)).toEqual(normal(content));
  });

  test("an emoji next to the delimiters is encoded too (marked reads it by half its surrogate pair)", () => {
    const content = [text("😀"), text("(y)", BOLD), text("😀")];
    const { written, readBack } = write(content);
    expect(written).toBe("&#x1F600;**(y)**&#x1F600;");
    expect(normal(readBack.content)).toEqual(normal(content));
  });

  test("where the rules already hold, nothing is encoded", () => {
    const cases: Array<[PMNode[], string]> = [
      [[text("Some "), text("bold", BOLD), text(" and "), text("italic", ITALIC), text(".")], "Some **bold** and *italic*."],
      [[text("Note:", BOLD), text(" spaced")], "**Note:** spaced"],
      [[text("("), text("x", BOLD), text(")")], "(**x**)"],
      [[text("word", ITALIC), text("s")], "*word*s"],
      [[text("bold", BOLD), text("it", ITALIC)], "**bold***it*"],
    ];
    for (const [content, expected] of cases) {
      const { written, readBack } = write(content);
      expect(written).toBe(expected);
      expect(normal(readBack.content)).toEqual(normal(content));
    }
  });

  test("a bold or italic space alone writes no delimiters", () => {
    expect(write([text("a"), text(" ", BOLD), text("b")]).written).toBe("a b");
    expect(write([text("a", ITALIC), text(" ", ITALIC, BOLD), text("b", ITALIC)]).written).toBe("*a b*");
  });

  test("a bare URL right after bold keeps its link in the bracketed form", () => {
    const link = { type: "link", attrs: { href: "https://example.test/x", title: null } };
    const content = [text("See:", BOLD), text("https://example.test/x", link)];
    const { written, readBack } = write(content);
    expect(written).toBe("**See:**[https://example.test/x](https://example.test/x)");
    expect(normal(readBack.content)).toEqual(normal(content));
    // Elsewhere a bare URL stays bare.
    expect(write([text("Go to "), text("https://example.test/x", link)]).written).toBe("Go to https://example.test/x");
  });

  test("a paragraph already written this way opens rich and saves back byte for byte", () => {
    const source = "**Note:**&#x74;ext and u&#x6E;*(believ)*&#x61;ble\n";
    const s = new MarkdownSession(source);
    expect(s.initial.content![0]!.type).toBe("paragraph");
    expect(s.rebase(s.initial)).toBe(true);
    expect(s.save(s.initial)).toBe(source);
  });
});
