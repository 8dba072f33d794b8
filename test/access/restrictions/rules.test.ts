import { describe, expect, test } from "bun:test";
import { checkEntries, findDuplicateKey, findWidening, ruleKey, type RuleSet } from "../../../src/access/restrictions/rules.ts";
import { linkLevel, visibilityFor, OPEN } from "../../../src/access/restrictions/visibility.ts";
import { parseRulesFile, serializeRules } from "../../../src/access/restrictions/access-file.ts";
import type { EffectiveRole } from "../../../src/workspaces/roles.ts";

/** The rules as values (docs/decisions/restricted-folders.md): keys, the narrowest rule along the path, groups, role caps, the file. */
const members = new Map<string, EffectiveRole>([
  ["ana@example.test", "editor"],
  ["vic@example.test", "viewer"],
  ["cam@example.test", "commenter"],
  ["ada@example.test", "admin"],
]);
const rules = (entries: Record<string, Array<[string, "view" | "comment" | "edit"]>>): RuleSet =>
  new Map(Object.entries(entries).map(([k, list]) => [k, list.map(([who, level]) => ({ who, level }))]));
const compiled = (r: RuleSet) => new Map([...r].map(([k, v]) => [k.toLowerCase(), v]));

describe("keys", () => {
  test("a folder ends with '/', a page with '.md'; dot, empty and hidden segments are refused", () => {
    expect(ruleKey("/hr/")).toBe("hr/");
    expect(ruleKey("guides/launch.md")).toBe("guides/launch.md");
    for (const bad of ["hr", "", "./hr/", "hr/../x/", "a//b/", ".quire/", "a\\b/", "x\u0000/"]) expect(() => ruleKey(bad)).toThrow();
  });

  test("two keys that differ only by case are one rule written twice", () => {
    expect(findDuplicateKey(rules({ "hr/": [["ana@example.test", "view"]], "HR/": [["ana@example.test", "view"]] }))).toContain("same folder");
  });
});

describe("who sees what", () => {
  const r = rules({
    "hr/": [["ana@example.test", "edit"], ["vic@example.test", "edit"], ["cam@example.test", "comment"]],
    "hr/pay/": [["ana@example.test", "view"]],
    "guides/plan.md": [["group:editors", "view"]],
    "open/": [["group:everyone", "view"]],
  });
  const vis = (email: string, role: EffectiveRole) => visibilityFor(compiled(r), email, role) as ReturnType<typeof visibilityFor> & { level(p: string): number };

  test("the narrowest rule along the path wins, capped by the role", () => {
    const ana = vis("ana@example.test", "editor");
    expect(ana.allows("hr/x.md", "edit")).toBe(true);
    expect(ana.allows("hr/pay/y.md", "edit")).toBe(false);
    expect(ana.sees("hr/pay/y.md")).toBe(true);
    expect(ana.sees("guides/plan.md")).toBe(true);
    const vic = vis("vic@example.test", "viewer");
    expect(vic.sees("hr/x.md")).toBe(true);
    expect(vic.allows("hr/x.md", "comment")).toBe(false); // a viewer given edit views
    expect(vic.sees("hr/pay/y.md")).toBe(false);
    expect(vic.sees("guides/plan.md")).toBe(false);
    expect(vis("cam@example.test", "commenter").allows("hr/x.md", "comment")).toBe(true);
  });

  test("case does not matter; unrestricted paths and the group everyone are open", () => {
    const bob = vis("bob@example.test", "editor");
    expect(bob.sees("HR/x.md")).toBe(false);
    expect(bob.sees("Hr/Pay/")).toBe(false);
    expect(bob.sees("hr/")).toBe(false);
    expect(bob.sees("notes/a.md")).toBe(true);
    expect(bob.allows("open/a.md", "view")).toBe(true);
    expect(bob.allows("open/a.md", "comment")).toBe(false);
    expect(bob.sees("guides/plan.md")).toBe(true); // an editor: group:editors
  });

  test("which folders hold a rule hidden from a person in a sub-folder: where a new folder could be one they may not see", () => {
    const deep = compiled(rules({
      "teams/finance/": [["ana@example.test", "edit"]],
      "teams/sales/q3/board.md": [["ana@example.test", "edit"]],
      "guides/board-notes.md": [["ana@example.test", "edit"]],
      "open/": [["group:everyone", "view"]],
    }));
    const bob = visibilityFor(deep, "bob@example.test", "editor");
    // A folder rule marks every folder above the folder it restricts; a page rule, every folder
    // above the one it sits in; the root holds all of them.
    for (const folder of ["", "teams", "Teams", "TEAMS", "teams/sales"]) expect(bob.holdsHidden(folder), folder).toBe(true);
    // A page hidden directly in guides/ lies in no new folder started there; nothing hidden lies
    // below the folder a rule restricts (it is not in the person's tree), open/, or an unknown name.
    for (const folder of ["guides", "teams/sales/q3", "teams/finance", "open", "elsewhere"]) expect(bob.holdsHidden(folder), folder).toBe(false);
    // For Ana nothing is hidden; for an admin and without rules the answer is a constant.
    const ana = visibilityFor(deep, "ana@example.test", "editor");
    expect(["", "teams", "teams/sales"].map((f) => ana.holdsHidden(f))).toEqual([false, false, false]);
    expect(visibilityFor(deep, "ada@example.test", "admin").holdsHidden("")).toBe(false);
    // A rule Bob sees (view for everyone) hides nothing; a narrower one inside it does.
    const nested = visibilityFor(compiled(rules({ "open/": [["group:everyone", "view"]], "open/board/": [["ana@example.test", "view"]] })), "bob@example.test", "editor");
    expect([nested.holdsHidden(""), nested.holdsHidden("open"), nested.holdsHidden("open/board")]).toEqual([true, true, false]);
  });

  test("admins and workspaces without rules get the constant OPEN", () => {
    expect(visibilityFor(compiled(r), "ada@example.test", "admin")).toBe(OPEN);
    expect(visibilityFor(compiled(r), "x@example.test", "super_admin")).toBe(OPEN);
    expect(visibilityFor(new Map(), "bob@example.test", "viewer")).toBe(OPEN);
  });
});

describe("a rule only narrows its parent's", () => {
  test("widening a member, a group, or naming someone the folder above leaves out is refused", () => {
    expect(findWidening(rules({ "hr/": [["ana@example.test", "view"]], "hr/pay/": [["ana@example.test", "edit"]] }), members)).toContain("can only narrow");
    expect(findWidening(rules({ "hr/": [["ana@example.test", "edit"]], "hr/pay/": [["vic@example.test", "view"]] }), members)).toContain("no access");
    expect(findWidening(rules({ "hr/": [["group:admins", "edit"]], "hr/a.md": [["group:editors", "view"]] }), members)).toContain("can only narrow");
    // A member is covered by their group above; a narrower group is covered by a wider one.
    expect(findWidening(rules({ "hr/": [["group:editors", "edit"]], "hr/pay/": [["ana@example.test", "comment"]] }), members)).toBeNull();
    expect(findWidening(rules({ "hr/": [["group:everyone", "view"]], "hr/pay/": [["group:editors", "view"]] }), members)).toBeNull();
    // Entries for admins are exempt: admins always have full access.
    expect(findWidening(rules({ "hr/": [["ana@example.test", "view"]], "hr/pay/": [["ada@example.test", "edit"], ["group:admins", "edit"]] }), members)).toBeNull();
  });
});

describe("the file", () => {
  test("the same rules give the same bytes, and read back to the same rules", () => {
    const r = rules({ "hr/": [["ana@example.test", "edit"]], "a b/c: d.md": [["group:everyone", "view"]] });
    const text = serializeRules(r);
    expect(serializeRules(new Map([...r].reverse()))).toBe(text);
    const back = parseRulesFile(text, members, new Map());
    expect("rules" in back && [...back.rules]).toEqual([...r].sort(([a], [b]) => (a < b ? -1 : 1)));
  });

  test("bad files are refused with the reason", () => {
    const cases: Array<[string, string]> = [
      ["restricted: [", "not valid YAML"],
      ["- a\n- b\n", "expected a map"],
      ["other: 1\n", "unknown key"],
      ["restricted:\n  hr/: nobody\n", "expected a list"],
      ["restricted:\n  hr/:\n    - { who: ana@example.test }\n", "needs a `who` and a `level`"],
      ["restricted:\n  hr/:\n    - { who: ana@example.test, level: owner }\n", "level"],
      ["restricted:\n  hr/:\n    - { who: nobody@example.test, level: view }\n", "not a member"],
      ["restricted:\n  hr:\n    - { who: ana@example.test, level: view }\n", "a folder ends with '/'"],
    ];
    for (const [text, why] of cases) {
      const parsed = parseRulesFile(text, members, new Map());
      expect("problem" in parsed ? parsed.problem : "accepted", text).toContain(why);
    }
    // A first reading (a clone) keeps people who are not members yet.
    expect("rules" in parseRulesFile("restricted:\n  hr/:\n    - { who: nobody@example.test, level: view }\n", members, new Map(), true)).toBe(true);
  });
});

describe("the link:anyone allowance", () => {
  const hr = rules({ "hr/": [["ana@example.test", "edit"], ["link:anyone", "comment"]], "hr/private/": [["ana@example.test", "edit"]], "hr/policies/": [["ana@example.test", "edit"], ["link:anyone", "view"]] });

  test("a link's level is the smallest allowance along the path; a rule without it takes it away; no rule allows it all", () => {
    expect(linkLevel(compiled(hr), "hr/salaries.md")).toBe(2);
    expect(linkLevel(compiled(hr), "HR/policies/leave.md")).toBe(1);
    expect(linkLevel(compiled(hr), "hr/private/notes.md")).toBe(0);
    expect(linkLevel(compiled(hr), "guides/intro.md")).toBe(3);
    expect(linkLevel(new Map(), "hr/salaries.md")).toBe(3);
  });

  test("it grants no member anything: a member the list does not name still does not see the page", () => {
    const vis = visibilityFor(compiled(rules({ "hr/": [["link:anyone", "comment"]] })), "vic@example.test", "viewer");
    expect(vis.sees("hr/salaries.md")).toBe(false);
    expect(visibilityFor(compiled(rules({ "hr/": [["link:anyone", "comment"]] })), "ada@example.test", "admin")).toBe(OPEN);
  });

  test("view or comment only, the one link entry, and it narrows like any other", () => {
    expect(checkEntries([{ who: "Link:Anyone", level: "view" }], members)).toEqual([{ who: "link:anyone", level: "view" }]);
    expect(() => checkEntries([{ who: "link:anyone", level: "edit" }], members)).toThrow("view or comment at most");
    expect(() => checkEntries([{ who: "link:all", level: "view" }], members)).toThrow("unknown link:all");
    expect(findWidening(hr, members)).toBeNull();
    // group:everyone above does not allow it below: only the allowance above does.
    expect(findWidening(rules({ "hr/": [["group:everyone", "edit"]], "hr/x/": [["link:anyone", "view"]] }), members)).toContain("link:anyone view, but hr/ above it allows no access");
    expect(findWidening(rules({ "hr/": [["link:anyone", "view"]], "hr/x/": [["link:anyone", "comment"]] }), members)).toContain("can only narrow");
  });

  test("the file carries it as written, and reads it back", () => {
    const text = serializeRules(hr);
    expect(text).toContain("- { who: link:anyone, level: comment }");
    const back = parseRulesFile(text, members, new Map());
    expect("rules" in back && back.rules).toEqual(hr);
  });
});
