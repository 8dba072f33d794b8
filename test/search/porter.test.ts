import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { porterStem } from "../../src/search/porter.ts";
import { fold, oneEditAway, words } from "../../src/search/terms.ts";

const REPO = join(import.meta.dir, "../..");

function markdownUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...markdownUnder(path));
    else if (name.endsWith(".md")) out.push(readFileSync(path, "utf8"));
  }
  return out;
}

test("the stemmer gives exactly the terms SQLite's porter tokenizer indexes", () => {
  const classic =
    "caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated troubled sized hopping tanned " +
    "falling hissing fizzed failing filing happy sky relational conditional rational valenci hesitanci digitizer " +
    "conformabli radicalli differentli vileli analogousli vietnamization predication operator feudalism decisiveness " +
    "hopefulness callousness formaliti sensitiviti sensibiliti triplicate formative formalize electriciti electrical " +
    "hopeful goodness revival allowance inference airliner gyroscopic adjustable defensible irritant replacement " +
    "adjustment dependent adoption homologou communism activate angulariti homologous effective bowdlerize probate " +
    "rate cease controll roll generalizations oscillators environment installation configuration retries eed ied " +
    "abc ab yyy sly spy syzygy queueing ageing weeding";
  const all = new Set<string>(classic.split(" "));
  for (const text of [readFileSync(join(REPO, "README.md"), "utf8"), ...markdownUnder(join(REPO, "assets"))]) {
    for (const w of words(text)) all.add(w);
  }
  const list = [...all];
  expect(list.length).toBeGreaterThan(500);
  const db = new Database(":memory:");
  db.run(`CREATE VIRTUAL TABLE t USING fts5(a, tokenize = 'porter unicode61 remove_diacritics 2')`);
  db.run("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)");
  const insert = db.query("INSERT INTO t (rowid, a) VALUES (?, ?)");
  db.transaction(() => list.forEach((w, i) => insert.run(i + 1, w)))();
  const mismatches = db
    .query<{ doc: number; term: string }, []>("SELECT doc, term FROM v")
    .all()
    .filter((r) => porterStem(list[r.doc - 1]!) !== r.term)
    .map((r) => `${list[r.doc - 1]} → ${porterStem(list[r.doc - 1]!)}, SQLite ${r.term}`);
  expect(mismatches).toEqual([]);
  db.close();
});

test("words are folded and split as unicode61 does", () => {
  expect(words("Crème-Brûlée api_key don't ÉCLAIR 42nd")).toEqual(["creme", "brulee", "api", "key", "don", "t", "eclair", "42nd"]);
  expect(fold("Ångström")).toBe("angstrom");
});

test("one edit away: drops, swaps, insertions and changes, not the word itself", () => {
  const edits = oneEditAway("cat");
  for (const w of ["at", "ct", "ca", "act", "cta", "scat", "cart", "cats", "bat", "cot", "car"]) expect(edits.has(w)).toBe(true);
  expect(edits.has("cat")).toBe(false);
  expect(edits.has("dog")).toBe(false);
});
