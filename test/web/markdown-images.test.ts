/**
 * Images in the rich editor's document: a Markdown image and an `<img>` tag with a width are image
 * nodes; untouched they keep their bytes, a changed alt text rewrites only the alt text.
 */
import { expect, test } from "bun:test";
import { MarkdownSession } from "../../src/web/markdown/session.ts";
import type { PMNode } from "../../src/web/markdown/pm.ts";
import { parseImgTag, withAlt } from "../../src/web/markdown/image-html.ts";

const open = (md: string) => {
  const s = new MarkdownSession(md);
  expect(s.rebase(s.initial)).toBe(true);
  return s;
};
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));
const images = (n: PMNode): PMNode[] => (n.type === "image" ? [n] : (n.content ?? []).flatMap(images));

test("an <img> tag alone or in a paragraph is an image node keeping its width; untouched it keeps its bytes", () => {
  const md = 'Intro.\n\n<img src="/a.png" alt="A &amp; B" width="300">\n\nSee <img src=\'b.png\' width=40 /> here and ![md](c.png "T").\n';
  const s = open(md);
  expect(images(s.initial).map((n) => [n.attrs!.src, n.attrs!.alt, n.attrs!.width ?? null])).toEqual([
    ["/a.png", "A & B", "300"],
    ["b.png", "", "40"],
    ["c.png", "md", null],
  ]);
  expect(s.save(clone(s.initial))).toBe(md);
});

test("a changed alt text rewrites only the alt attribute (or the Markdown image's alt), the rest of the bytes stay", () => {
  const md = 'Intro.\n\n<img src="/a.png" alt="A" width="300">\n\nSee <img src=\'b.png\' width=40 /> here and ![md](c.png "T").\n';
  const s = open(md);
  const doc = clone(s.initial);
  const [a, b, c] = images(doc);
  a!.attrs = { ...a!.attrs, alt: 'The "A"' };
  b!.attrs = { ...b!.attrs, alt: "Bee's" };
  c!.attrs = { ...c!.attrs, alt: "M [d]" };
  expect(s.save(doc)).toBe('Intro.\n\n<img src="/a.png" alt="The &quot;A&quot;" width="300">\n\nSee <img alt="Bee\'s" src=\'b.png\' width=40 /> here and ![M \\[d\\]](c.png "T").\n');
});

test("only a lone tag with the attributes the site keeps is taken; the rest stays HTML source", () => {
  expect(parseImgTag('<img src="x.png" onerror="alert(1)">')).toBeNull();
  expect(parseImgTag('<img src="javascript:alert(1)">')).toBeNull();
  expect(parseImgTag('<img src="data:text/html;base64,PHA+">')).toBeNull();
  expect(parseImgTag('<img src="data:image/png;base64,iVBO">')?.src).toBe("data:image/png;base64,iVBO");
  expect(parseImgTag('<img src="x.png"> <b>x</b>')).toBeNull();
  expect(parseImgTag("<img alt=x>")).toBeNull();
  expect(parseImgTag('<img src="a" src="b">')).toBeNull();
  expect(parseImgTag('<IMG SRC="x.png" WIDTH=5>')).toEqual({ src: "x.png", alt: "", title: null, width: "5", height: null });
  for (const md of ['<img src="x.png" onerror="alert(1)">\n', 'A <img src="x.png" style="width:1px"> b.\n']) {
    const s = open(md);
    expect(s.initial.content![0]!.type).toBe("rawBlock");
    expect(s.save(clone(s.initial))).toBe(md);
  }
});

test("withAlt keeps the quoting and spacing of the alt attribute", () => {
  expect(withAlt("<img src=x alt = 'a' width=1>", "b")).toBe("<img src=x alt = 'b' width=1>");
  expect(withAlt("<img src=x alt=a>", "b c")).toBe('<img src=x alt="b c">');
  expect(withAlt("<img src=x alt>", "b")).toBe('<img src=x alt="b">');
  expect(withAlt('<img src=x alt="">', "<b>")).toBe('<img src=x alt="&lt;b>">');
});
