/**
 * Flesch reading ease for English prose: 206.835 − 1.015 × (words / sentences) − 84.6 × (syllables / words).
 * 60–70 is plain English, below 30 is "very difficult" (academic papers). Syllables are counted by the
 * usual vowel-group heuristic, which is within a few points of dictionary counts on running text.
 * Text that is not English (too few of the most common English words) gets no score: the formula's
 * constants are fitted to English and say nothing about other languages.
 */
const COMMON = new Set(
  "the be to of and a in that have i it for not on with he as you do at this but his by from they we say her she or an will my one all would there their what so up out if about who get which go me when make can like time no just him know take people into year your good some could them see other than then now look only come its over think also back after use two how our work first well way even new want because any these give day most us is are was were has had been may should".split(" "),
);

function isEnglish(words: string[]): boolean {
  if (words.length === 0) return false;
  let common = 0;
  // Most words are written in lower case already: look them up before lowering the rest.
  for (const w of words) if (COMMON.has(w) || COMMON.has(w.toLowerCase())) common++;
  return common / words.length >= 0.2;
}

/**
 * Syllable counts by word, kept across pages: running text repeats its words, and the count is
 * most of a scan's readability cost. Cleared when it grows past a bound, so memory stays flat.
 */
const SYLLABLES = new Map<string, number>();
const SYLLABLE_CACHE_MAX = 50_000;

function syllables(word: string): number {
  let n = SYLLABLES.get(word);
  if (n === undefined) {
    if (SYLLABLES.size >= SYLLABLE_CACHE_MAX) SYLLABLES.clear();
    n = countSyllables(word);
    SYLLABLES.set(word, n);
  }
  return n;
}

function countSyllables(word: string): number {
  let w = word.toLowerCase().replace(/[^a-z]/g, "");
  if (w.length <= 3) return 1;
  w = w.replace(/(?:[^laeiouy]es|ed|[^laeiouy]e)$/, "").replace(/^y/, "");
  const groups = w.match(/[aeiouy]{1,2}/g);
  return Math.max(1, groups ? groups.length : 1);
}

interface Readability {
  words: number;
  sentences: number;
  score: number;
}

/** The reading ease of `text`, or null when it is too short (under 100 words) or not English. */
export function fleschReadingEase(text: string): Readability | null {
  const words = text.match(/[A-Za-z]+(?:['’][A-Za-z]+)*/g) ?? [];
  if (words.length < 100 || !isEnglish(words)) return null;
  const sentences = Math.max(1, (text.match(/[.!?]+(?=\s|$)/g) ?? []).length);
  let syl = 0;
  for (const w of words) syl += syllables(w);
  const score = 206.835 - 1.015 * (words.length / sentences) - 84.6 * (syl / words.length);
  return { words: words.length, sentences, score: Math.round(score * 10) / 10 };
}
