import { porterStem } from "./porter.ts";
import { ENGLISH_STOP_WORDS } from "./stop-words.ts";

/**
 * Words as the index sees them. FTS5's `unicode61 remove_diacritics 2` tokenizer splits on
 * everything but letters, digits and private-use characters, folds case and strips diacritics;
 * `porter` then stems. The query side repeats that here so it can reason about the vocabulary
 * (stop words, typo candidates) before anything reaches MATCH.
 */
const STOP = new Set(ENGLISH_STOP_WORDS);
const WORD = /[\p{L}\p{N}]+/gu;

/** Lower case without diacritics ("Éclair" → "eclair"). */
export function fold(word: string): string {
  const lower = word.toLowerCase();
  return /^[\x00-\x7f]*$/.test(lower) ? lower : lower.normalize("NFD").replace(/\p{M}+/gu, "").normalize("NFC");
}

/** The folded words of a text, in order (letters and digits only: nothing else can reach MATCH). */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(WORD)) {
    const w = fold(m[0]);
    if (w !== "") out.push(w);
  }
  return out;
}

export const isStopWord = (folded: string): boolean => STOP.has(folded);

export const stem = porterStem;

/** Words of this many letters or more still match with one letter wrong... */
export const TYPO_MIN_LENGTH = 5;
/** ...up to this length (a longer "word" is no typo, and its spellings one edit away number thousands). */
export const TYPO_MAX_LENGTH = 30;
const ALPHABET = "abcdefghijklmnopqrstuvwxyz";

/**
 * Every spelling one edit away (a letter dropped, changed, inserted, or two neighbours swapped).
 * The edits are made to the word as typed, not its stem, so "environmnt" reaches "environment"
 * and from there the indexed stem "environ".
 */
export function oneEditAway(word: string): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i <= word.length; i++) {
    const head = word.slice(0, i);
    const tail = word.slice(i);
    if (tail.length > 0) out.add(head + tail.slice(1));
    if (tail.length > 1) out.add(head + tail[1] + tail[0] + tail.slice(2));
    for (const c of ALPHABET) {
      out.add(head + c + tail);
      if (tail.length > 0 && c !== tail[0]) out.add(head + c + tail.slice(1));
    }
  }
  out.delete(word);
  return out;
}
