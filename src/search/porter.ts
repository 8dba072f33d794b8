/**
 * The Porter stemmer exactly as SQLite's FTS5 `porter` tokenizer applies it (fts5_tokenize.c),
 * so the query side can predict which indexed term a word becomes: typo candidates are stemmed
 * here and looked up in the index's vocabulary. A rule group is chosen by the word's second-last
 * letter and the first suffix that matches decides, whether or not its condition holds (FTS5's
 * generated code behaves that way, and a divergence would make lookups miss).
 */

type Cond = (w: string, n: number) => boolean;
interface Rule {
  suffix: string;
  to: string;
  cond: Cond;
}

const isVowel = (c: string, yIsVowel: boolean) =>
  c === "a" || c === "e" || c === "i" || c === "o" || c === "u" || (yIsVowel && c === "y");

/** Skips one vowel run then one consonant; the index after it, or 0 when the stem has no VC. */
function gobbleVC(w: string, start: number, end: number, prevCons: boolean): number {
  let cons = prevCons;
  let i = start;
  for (; i < end; i++) {
    cons = !isVowel(w[i]!, cons);
    if (!cons) break;
  }
  for (i++; i < end; i++) {
    cons = !isVowel(w[i]!, cons);
    if (cons) return i + 1;
  }
  return 0;
}

const mGt0: Cond = (w, n) => gobbleVC(w, 0, n, false) !== 0;
const mGt1: Cond = (w, n) => {
  const k = gobbleVC(w, 0, n, false);
  return k !== 0 && gobbleVC(w, k, n, true) !== 0;
};
const mEq1: Cond = (w, n) => {
  const k = gobbleVC(w, 0, n, false);
  return k !== 0 && gobbleVC(w, k, n, true) === 0;
};
/** *o: the stem ends consonant-vowel-consonant, the last not w, x or y. */
const oStar: Cond = (w, n) => {
  const last = w[n - 1];
  if (last === "w" || last === "x" || last === "y") return false;
  let mask = 0;
  let cons = false;
  for (let i = 0; i < n; i++) {
    cons = !isVowel(w[i]!, cons);
    mask = ((mask << 1) | (cons ? 1 : 0)) & 0xff;
  }
  return (mask & 7) === 5;
};
const hasVowel: Cond = (w, n) => {
  for (let i = 0; i < n; i++) if (isVowel(w[i]!, i > 0)) return true;
  return false;
};
const mGt1SorT: Cond = (w, n) => (w[n - 1] === "s" || w[n - 1] === "t") && mGt1(w, n);
const always: Cond = () => true;

function group(cond: Cond, pairs: [string, string][]): Rule[] {
  return pairs.map(([suffix, to]) => ({ suffix, to, cond }));
}

/** Rule groups keyed by the word's second-last letter, in FTS5's order. */
const STEP2: Record<string, Rule[]> = {
  a: group(mGt0, [["ational", "ate"], ["tional", "tion"]]),
  c: group(mGt0, [["enci", "ence"], ["anci", "ance"]]),
  e: group(mGt0, [["izer", "ize"]]),
  g: group(mGt0, [["logi", "log"]]),
  l: group(mGt0, [["bli", "ble"], ["alli", "al"], ["entli", "ent"], ["eli", "e"], ["ousli", "ous"]]),
  o: group(mGt0, [["ization", "ize"], ["ation", "ate"], ["ator", "ate"]]),
  s: group(mGt0, [["alism", "al"], ["iveness", "ive"], ["fulness", "ful"], ["ousness", "ous"]]),
  t: group(mGt0, [["aliti", "al"], ["iviti", "ive"], ["biliti", "ble"]]),
};
const STEP3: Record<string, Rule[]> = {
  a: group(mGt0, [["ical", "ic"]]),
  s: group(mGt0, [["ness", ""]]),
  t: group(mGt0, [["icate", "ic"], ["iciti", "ic"]]),
  u: group(mGt0, [["ful", ""]]),
  v: group(mGt0, [["ative", ""]]),
  z: group(mGt0, [["alize", "al"]]),
};
const STEP4: Record<string, Rule[]> = {
  a: group(mGt1, [["al", ""]]),
  c: group(mGt1, [["ance", ""], ["ence", ""]]),
  e: group(mGt1, [["er", ""]]),
  i: group(mGt1, [["ic", ""]]),
  l: group(mGt1, [["able", ""], ["ible", ""]]),
  n: group(mGt1, [["ant", ""], ["ement", ""], ["ment", ""], ["ent", ""]]),
  o: [{ suffix: "ion", to: "", cond: mGt1SorT }, { suffix: "ou", to: "", cond: mGt1 }],
  s: group(mGt1, [["ism", ""]]),
  t: group(mGt1, [["ate", ""], ["iti", ""]]),
  u: group(mGt1, [["ous", ""]]),
  v: group(mGt1, [["ive", ""]]),
  z: group(mGt1, [["ize", ""]]),
};
const STEP1B2: Record<string, Rule[]> = {
  a: group(always, [["at", "ate"]]),
  b: group(always, [["bl", "ble"]]),
  i: group(always, [["iz", "ize"]]),
};

/** Applies the first rule whose suffix matches (the word must be longer than it); null when none matched. */
function apply(w: string, table: Record<string, Rule[]>): { word: string; changed: boolean } | null {
  const rules = table[w[w.length - 2] ?? ""];
  if (!rules) return null;
  for (const r of rules) {
    if (w.length > r.suffix.length && w.endsWith(r.suffix)) {
      const n = w.length - r.suffix.length;
      if (r.cond(w, n)) return { word: w.slice(0, n) + r.to, changed: true };
      return { word: w, changed: false };
    }
  }
  return null;
}

function step1B(w: string): { word: string; more: boolean } {
  const p = w[w.length - 2];
  if (p === "e") {
    if (w.length > 3 && w.endsWith("eed")) return { word: mGt0(w, w.length - 3) ? w.slice(0, -1) : w, more: false };
    if (w.length > 2 && w.endsWith("ed") && hasVowel(w, w.length - 2)) return { word: w.slice(0, -2), more: true };
  } else if (p === "n") {
    if (w.length > 3 && w.endsWith("ing") && hasVowel(w, w.length - 3)) return { word: w.slice(0, -3), more: true };
  }
  return { word: w, more: false };
}

const MAX_TOKEN_BYTES = 64;
const utf8Length = (s: string) => (/^[\x00-\x7f]*$/.test(s) ? s.length : Buffer.byteLength(s, "utf8"));

/** The stem FTS5's porter tokenizer indexes for one already folded, lower-case token. */
export function porterStem(token: string): string {
  const bytes = utf8Length(token);
  if (bytes > MAX_TOKEN_BYTES || bytes < 3) return token;
  let w = token;
  // Step 1a.
  if (w.endsWith("s")) {
    if (w[w.length - 2] === "e") {
      if ((w.length > 4 && w.endsWith("sses")) || (w.length > 3 && w[w.length - 3] === "i")) w = w.slice(0, -2);
      else w = w.slice(0, -1);
    } else if (w[w.length - 2] !== "s") {
      w = w.slice(0, -1);
    }
  }
  // Step 1b.
  const b = step1B(w);
  w = b.word;
  if (b.more) {
    const b2 = apply(w, STEP1B2);
    if (!b2?.changed) {
      const c = w[w.length - 1]!;
      if (!isVowel(c, false) && c !== "l" && c !== "s" && c !== "z" && c === w[w.length - 2]) w = w.slice(0, -1);
      else if (mEq1(w, w.length) && oStar(w, w.length)) w += "e";
    } else {
      w = b2.word;
    }
  }
  // Step 1c.
  if (w.endsWith("y") && hasVowel(w, w.length - 1)) w = w.slice(0, -1) + "i";
  // Steps 2 to 4.
  w = apply(w, STEP2)?.word ?? w;
  w = apply(w, STEP3)?.word ?? w;
  w = apply(w, STEP4)?.word ?? w;
  // Step 5a.
  if (w.endsWith("e")) {
    const n = w.length - 1;
    if (mGt1(w, n) || (mEq1(w, n) && !oStar(w, n))) w = w.slice(0, -1);
  }
  // Step 5b.
  if (w.length > 1 && w.endsWith("ll") && mGt1(w, w.length - 1)) w = w.slice(0, -1);
  return w;
}
