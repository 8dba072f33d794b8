import type { WorkspaceIndex } from "./workspace-index.ts";
import { isStopWord, oneEditAway, stem, TYPO_MAX_LENGTH, TYPO_MIN_LENGTH, words } from "./terms.ts";

/** At most this many distinct words count: each costs index lookups, a misspelt one a vocabulary probe. */
const MAX_QUERY_WORDS = 12;
/** The last word is matched as a prefix (the person may still be typing it) from this length on. */
const PREFIX_MIN_LENGTH = 3;
/** A misspelt word is replaced by at most this many indexed words one edit away. */
const MAX_TYPO_ALTERNATIVES = 8;

/**
 * Turns what a person typed into an FTS5 MATCH expression. Input never reaches MATCH as it is:
 * the query is cut into words of letters and digits (so `"`, `*`, `:`, `-`, `(`, NEAR, OR, AND,
 * NOT and column names are just words or nothing), and every word is written as a quoted string.
 *
 * Each word becomes a group, and a page must match every group (AND): the word itself (with its
 * other forms, by stemming); or, when the workspace does not know the word, for the last word
 * any indexed word it starts (the person may still be typing it), else — for words of at least
 * TYPO_MIN_LENGTH letters — the indexed words one edit away. Stop words are dropped,
 * and so are words that match nothing at all, so a stray unknown word does not empty the
 * results. Null when nothing is left to search for.
 */
export function planQuery(index: WorkspaceIndex, q: string): string | null {
  const distinct = [...new Set(words(q))].slice(0, MAX_QUERY_WORDS).filter((w) => !isStopWord(w));
  const groups: string[] = [];
  distinct.forEach((word, i) => {
    if (index.hasWord(word)) {
      groups.push(`"${word}"`);
      return;
    }
    // Only a fragment is matched as a prefix: a word the index knows is matched as a word (with
    // its other forms, by stemming), and a prefix query costs a merge of every term it covers.
    if (i === distinct.length - 1 && word.length >= PREFIX_MIN_LENGTH && index.hasPrefix(word)) {
      groups.push(`"${word}"*`);
      return;
    }
    if (word.length < TYPO_MIN_LENGTH || word.length > TYPO_MAX_LENGTH) return;
    const alternatives = typoAlternatives(index, word);
    if (alternatives.length === 1) groups.push(alternatives[0]!);
    else if (alternatives.length > 1) groups.push(`(${alternatives.join(" OR ")})`);
  });
  return groups.length > 0 ? groups.join(" AND ") : null;
}

/**
 * Quoted spellings one edit away from `word` whose stems are in the workspace's vocabulary, one
 * per stem. The spelling (not the stem) goes into MATCH because FTS5 stems what it is given, and
 * a stem stemmed again is not always itself.
 */
function typoAlternatives(index: WorkspaceIndex, word: string): string[] {
  const spellingOf = new Map<string, string>();
  for (const variant of oneEditAway(word)) {
    const s = stem(variant);
    if (!spellingOf.has(s)) spellingOf.set(s, variant);
  }
  const out: string[] = [];
  for (const [s, spelling] of spellingOf) {
    if (!index.vocabulary.has(s)) continue;
    out.push(`"${spelling}"`);
    if (out.length === MAX_TYPO_ALTERNATIVES) break;
  }
  return out;
}
