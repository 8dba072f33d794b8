import { describe, expect, test } from "bun:test";
import { matchSlashItems, SLASH_ITEMS } from "../../../src/web/editor/slash-items.ts";

const labels = (q: string) => matchSlashItems(q).map((i) => i.label);

describe("the slash menu's matching", () => {
  test("nothing typed lists every block and component", () => {
    expect(labels("")).toEqual(SLASH_ITEMS.map((i) => i.label));
    for (const name of ["Heading 1", "Task list", "Quote", "Code block", "Table", "Divider", "Callout", "Tabs", "Steps", "Accordion", "Cards", "API badge", "Embed", "Diagram", "Math"]) {
      expect(labels("")).toContain(name);
    }
  });

  test("names and words starting with the text come first, then letters in order", () => {
    expect(labels("tab")[0]).toBe("Table");
    expect(labels("tab")).toContain("Tabs");
    expect(labels("nmbr")[0]).toBe("Numbered list");
    expect(labels("mermaid")).toEqual(["Diagram"]);
    expect(labels("todo")[0]).toBe("Task list");
    expect(labels("h 2")[0]).toBe("Heading 2");
    expect(labels("badge").slice(0, 2)).toEqual(["Badge", "API badge"]);
  });

  test("text matching nothing lists nothing", () => {
    expect(labels("zzzq")).toEqual([]);
  });
});
