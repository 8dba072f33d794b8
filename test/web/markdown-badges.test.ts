/**
 * Inline badges open as their own nodes (the editor's chips) and are written back as typed; a
 * changed variant rewrites only its value inside the attribute text.
 */
import { expect, test } from "bun:test";
import { MarkdownSession } from "../../src/web/markdown/session.ts";
import type { PMNode } from "../../src/web/markdown/pm.ts";
import { BADGE_VARIANTS, badgeVariant, cleanBadgeText, withVariant } from "../../src/web/markdown/badge.ts";
import { BADGE_VARIANTS as RENDERER_VARIANTS } from "../../src/publish/render/components.ts";

const open = (md: string) => {
  const s = new MarkdownSession(md);
  expect(s.rebase(s.initial)).toBe(true);
  return s;
};
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));

test("the editor offers the variants the site draws", () => {
  expect(BADGE_VARIANTS).toEqual([...RENDERER_VARIANTS]);
});

test("each badge is a node with its text and attribute text as written; code spans and link texts keep theirs", () => {
  const md = 'This is :badge[New]{variant=info}, **:Badge[Old]{ type = "warning" .x}**, :badge[Plain] and `:badge[code]` and [a :badge[b]](/l).\n';
  const s = open(md);
  const para = s.initial.content![0]!.content!;
  expect(para.filter((n) => n.type === "badge")).toEqual([
    { type: "badge", attrs: { name: "badge", text: "New", attrs: "variant=info" } },
    { type: "badge", attrs: { name: "Badge", text: "Old", attrs: ' type = "warning" .x' }, marks: [{ type: "bold" }] },
    { type: "badge", attrs: { name: "badge", text: "Plain", attrs: null } },
  ]);
  expect(s.save(clone(s.initial))).toBe(md);
});

test("editing a badge's text or variant changes only that badge; the paragraph's other bytes stay", () => {
  const md = "Intro.\n\nShip it :badge[New]{variant=info #id} — *now* [[guide|Guide]].\n\nAfter.\n";
  const s = open(md);
  const doc = clone(s.initial);
  const badge = doc.content![1]!.content!.find((n) => n.type === "badge")!;
  badge.attrs = { ...badge.attrs, text: "Beta", attrs: withVariant(String(badge.attrs!.attrs), "beta") };
  expect(s.save(doc)).toBe("Intro.\n\nShip it :badge[Beta]{variant=beta #id} — *now* [[guide|Guide]].\n\nAfter.\n");
  // A new badge in an edited paragraph, and a badge in a table cell.
  const doc2 = clone(s.initial);
  doc2.content![0]!.content!.push({ type: "text", text: " " }, { type: "badge", attrs: { name: "badge", text: "Fresh", attrs: withVariant(null, "success") } } as PMNode);
  expect(s.save(doc2)).toBe(md.replace("Intro.", "Intro. :badge[Fresh]{variant=success}"));
  const table = "| k | v |\n|---|---|\n| :badge[A]{variant=tip} | 1 |\n";
  const t = open(table);
  expect(t.initial.content![0]!.content![1]!.content![0]!.content![0]!.content![0]!.type).toBe("badge");
  expect(t.save(clone(t.initial))).toBe(table);
});

test("the variant is read as the site reads it and replaced in its own quoting", () => {
  expect(badgeVariant(null)).toBe("default");
  expect(badgeVariant("variant=info")).toBe("info");
  expect(badgeVariant('type="Warning"')).toBe("warning");
  expect(badgeVariant("variant=nope")).toBe("default");
  expect(badgeVariant("type=tip variant=beta")).toBe("beta");
  expect(withVariant(null, "info")).toBe("variant=info");
  expect(withVariant("", "info")).toBe("variant=info");
  expect(withVariant(".big", "info")).toBe(".big variant=info");
  expect(withVariant('variant="info" .x', "danger")).toBe('variant="danger" .x');
  expect(withVariant("variant='info'", "danger")).toBe("variant='danger'");
  expect(withVariant("variant = info", "danger")).toBe("variant = danger");
  expect(withVariant("type=note", "tip")).toBe("type=tip");
  expect(withVariant("variant", "tip")).toBe("variant=tip");
  expect(cleanBadgeText("a[b]\nc")).toBe("abc");
});

test("a badge whose text holds an escape or an entity stays source: its bytes could not come back", () => {
  for (const md of ["A :badge[x &amp; y] b.\n", "A :badge[*x*] b.\n"]) {
    const s = open(md);
    expect(s.initial.content![0]!.type).toBe("rawBlock");
    expect(s.save(clone(s.initial))).toBe(md);
  }
});
